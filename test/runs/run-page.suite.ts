// docs/security.md, bounded rendering on every page, over real HTTP against
// the built app on one database: the run page of requests with large
// look-alike arguments stays under a fixed size that does not grow with the
// arguments (a run of 10 KB requests against one of 140 KB), shows each
// request's requested_by, summary and environment escaped and marked like
// the request's page, with a link to all of its arguments; the queue
// filtered to the run and the admin pages do not grow either. Who may decide
// follows the policy as it is now (docs/revisions.md): a reviewer whose role
// the policy dropped after the requests arrived sees them left out of the
// batch. And the digest rule, asked of the database, agrees with the
// request's page.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";

/** The page's text as a reader sees it: tags and React's text separators removed. */
const ENTITIES: Record<string, string> = { "&quot;": '"', "&#x27;": "'", "&lt;": "<", "&gt;": ">", "&amp;": "&" };
const visibleText = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/&(quot|#x27|lt|gt|amp);/g, (e) => ENTITIES[e]!);

/** The HTML after each element with this data-testid (up to the next one of its kind). */
const sections = (html: string, testId: string) => html.split(`data-testid="${testId}"`).slice(1);
/** Each listed request's HTML (from its article to the next one), by approval id, in page order. */
const requestsOf = (html: string) =>
  new Map(
    html
      .split('data-approval-id="')
      .slice(1)
      .map((chunk) => [chunk.slice(0, chunk.indexOf('"')), chunk] as const),
  );
/** The text of the first element after this data-testid. */
const textAt = (html: string, testId: string) => {
  const chunk = sections(html, testId)[0] ?? "";
  return visibleText(chunk.slice(chunk.indexOf(">") + 1, chunk.search(/<\/(p|dd|figure)>/)));
};
/** Every admin page; the audit trail also as the newest events of one type (the last run's, whichever it was). */
const ADMIN_PAGES = [
  "/admin/audit",
  `/admin/audit?${new URLSearchParams({ type: "approval.requested", limit: "10" })}`,
  "/admin/executions",
  "/admin/outbox",
  "/admin/insights",
  "/admin/services",
  "/admin/policies",
  "/admin/users",
];

/**
 * Deterministic look-alike text (so two runs differ only in size): Latin
 * words with Cyrillic letters, zero-width characters, direction overrides.
 */
function lookalike(chars: number): string {
  const words = ["pаypal", "invоice", "refund", "sh\u200Bipment", "\u202Eevil\u202C", "аccount", "\u2067note\u2069", "review"];
  let s = "";
  for (let i = 0; s.length < chars; i++) s += `${words[i % words.length]} `;
  return s.slice(0, chars);
}
/** About `bytes` of JSON text: records of look-alike memos. */
function bigArguments(bytes: number) {
  const records: Array<{ id: number; memo: string }> = [];
  for (let i = 0; JSON.stringify(records).length < bytes; i++) records.push({ id: i, memo: lookalike(700) });
  return { title: lookalike(60), records };
}

const RUN_SIZE = 10;
/** What one listed request may add to the run page, and the page around them. */
const PER_REQUEST_BYTES = 12_000;
const PAGE_BYTES = 80_000;

export function runPageSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`run page bounds and display (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let service: Awaited<ReturnType<typeof import("../helpers/fixtures").makeService>>;
    let prefix = "";
    let reviewerCookie = "";
    let adminCookie = "";
    let reviewerEmail = "";

    const get = async (path: string, cookie: string) => {
      const res = await fetch(`${base}${path}`, { headers: { cookie }, redirect: "manual" });
      const html = await res.text();
      expect(res.status, path).toBe(200);
      return html;
    };
    const runPath = (runId: string) => `/runs/${service.slug}/${runId}`;
    const ask = (runId: string, i: number, data: Record<string, unknown>) =>
      f.makeApproval(service, { run_id: runId, tool: `${prefix}.publish`, ...data, call_id: `call_${i}` } as Parameters<typeof f.makeApproval>[1]);
    /** One run of RUN_SIZE requests of about `bytes` of look-alike arguments each; its id. */
    async function makeRun(bytes: number) {
      const runId = `run_${randomUUID()}`;
      for (let i = 0; i < RUN_SIZE; i++) {
        await ask(runId, i, {
          arguments: bigArguments(bytes),
          requested_by: "agent-dоcs@example.com",
          summary: `Publish <script>alert(1)</script> the \u202Egnp.exe\u202C notes: ${lookalike(1_900)}`,
          environment: "prоduction",
        });
      }
      return runId;
    }
    let small = "";
    let big = "";
    /** Each admin page's size after the small run, and after the big one. */
    const adminBytes: Array<Record<string, number>> = [];
    const adminSizes = async () => {
      const sizes: Record<string, number> = {};
      for (const path of ADMIN_PAGES) sizes[path] = Buffer.byteLength(await get(path, adminCookie));
      adminBytes.push(sizes);
    };

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      const { addUser } = await import("@/lib/users/add-user");
      service = await f.makeService();
      prefix = `rp${f.uid()}`;
      const role = `runpage-${f.uid()}`;
      await f.makePolicy({ tool: `${prefix}.*`, roles: [role], quorum: 1 });
      const password = randomBytes(12).toString("base64url");
      reviewerEmail = `rp-${f.uid()}@example.com`;
      await addUser({ email: reviewerEmail, password, roles: [role] }, "cli");
      const admin = await addUser({ email: `rp-admin-${f.uid()}@example.com`, password, roles: ["admin"] }, "cli");
      reviewerCookie = await signInWithPassword(base, reviewerEmail, password);
      adminCookie = await signInWithPassword(base, admin.email, password);
      small = await makeRun(10_000);
      await adminSizes();
      big = await makeRun(140_000);
      await adminSizes();
    }, 300_000);
    afterAll(async () => (await import("@/lib/db/client")).db().$disconnect());

    it("stays under a fixed size that does not grow with the arguments (10 KB against 140 KB a request)", async () => {
      const [smallHtml, bigHtml] = [await get(runPath(small), reviewerCookie), await get(runPath(big), reviewerCookie)];
      for (const html of [smallHtml, bigHtml]) {
        expect(sections(html, "run-request")).toHaveLength(RUN_SIZE);
        expect(Buffer.byteLength(html)).toBeLessThan(PAGE_BYTES + RUN_SIZE * PER_REQUEST_BYTES);
      }
      // The same text, 14 times more of it: the pages differ by ids, digests and lengths only.
      expect(Math.abs(Buffer.byteLength(bigHtml) - Buffer.byteLength(smallHtml))).toBeLessThan(RUN_SIZE * 100);
      // Each request says that only its start is shown, and links to all of it.
      expect(visibleText(bigHtml)).toContain("All arguments (");
      expect(sections(bigHtml, "run-full-args")).toHaveLength(RUN_SIZE);
      // The warning at the top, before Approve all; every request marked.
      expect(bigHtml.indexOf('data-testid="run-display-warning"')).toBeLessThan(bigHtml.indexOf("Approve all"));
      expect(visibleText(bigHtml)).toContain(
        `Check carefully: ${RUN_SIZE} requests of this run contain hidden, direction-changing or look-alike characters`,
      );
      expect(sections(bigHtml, "run-flagged")).toHaveLength(RUN_SIZE);
    });

    it("shows each request's requested_by, summary and environment, escaped and marked as on the request's page", async () => {
      const html = await get(runPath(big), reviewerCookie);
      const [id, one] = [...requestsOf(html)][0]!;
      const [requestedBy] = sections(one, "run-requested-by");
      const [environment] = sections(one, "run-environment");
      const [summary] = sections(one, "run-summary");
      // The Cyrillic о marked as a look-alike letter, in both fields.
      expect(requestedBy).toMatch(/^[^]*?agent-d<mark[^>]*data-lookalike=""[^>]*>о<\/mark>cs@example\.com/);
      expect(environment).toMatch(/^[^]*?pr<mark[^>]*data-lookalike=""[^>]*>о<\/mark>duction/);
      // The summary: markup as text, the override as a visible escape, never raw; cut, with its flag.
      expect(summary).toContain("Publish &lt;script&gt;alert(1)&lt;/script&gt; the ");
      expect(visibleText(summary!)).toContain("⟨U+202E⟩gnp.exe⟨U+202C⟩");
      expect(html).not.toContain("\u202E");
      expect(html).not.toContain("<script>alert(1)");
      expect(summary).toMatch(/data-flag=""[^>]*title="[^"]*right-to-left override/);
      expect(textAt(one, "run-flagged")).toBe(
        "⚠ Hidden, direction-changing or look-alike characters in: environment, requested by, summary, arguments",
      );
      // Its link to all its arguments goes to the request's page.
      expect(/<a[^>]*data-testid="run-full-args"[^>]*>/.exec(one)?.[0]).toContain(`href="/approvals/${id}"`);
    });

    it("filters the queue to the run within the same bound, and the admin pages do not grow either", async () => {
      const queue = (runId: string) => `/approvals?${new URLSearchParams({ service: service.slug, run: runId })}`;
      const [smallQueue, bigQueue] = [await get(queue(small), reviewerCookie), await get(queue(big), reviewerCookie)];
      expect(sections(bigQueue, "row-tool")).toHaveLength(RUN_SIZE);
      expect(Buffer.byteLength(bigQueue)).toBeLessThan(PAGE_BYTES + RUN_SIZE * PER_REQUEST_BYTES);
      expect(Math.abs(Buffer.byteLength(bigQueue) - Buffer.byteLength(smallQueue))).toBeLessThan(RUN_SIZE * 100);
      const [afterSmall, afterBig] = adminBytes as [Record<string, number>, Record<string, number>];
      for (const path of ADMIN_PAGES) {
        expect(afterBig[path], path).toBeLessThan(1024 * 1024);
        // The newest events of the whole trail are of other kinds after one run than after the other.
        if (path === "/admin/audit") continue;
        expect(Math.abs(afterBig[path]! - afterSmall[path]!), `${path}: ${afterSmall[path]} B, then ${afterBig[path]} B`).toBeLessThan(
          afterSmall[path]! * 0.05 + 4096,
        );
      }
    });

    it("leaves out of the batch a reviewer whose role the policy no longer names", async () => {
      const { addUser } = await import("@/lib/users/add-user");
      const { db } = await import("@/lib/db/client");
      const before = `dropped-${f.uid()}`;
      const after = `kept-${f.uid()}`;
      const tools = `rq${f.uid()}`;
      const policy = await f.makePolicy({ tool: `${tools}.*`, roles: [before], quorum: 1 });
      const password = randomBytes(12).toString("base64url");
      const bob = await addUser({ email: `rp-bob-${f.uid()}@example.com`, password, roles: [before] }, "cli");
      const cookie = await signInWithPassword(base, bob.email, password);
      const runId = `run_${randomUUID()}`;
      for (let i = 0; i < 2; i++) {
        await f.makeApproval(service, { run_id: runId, tool: `${tools}.t${i}`, arguments: { n: i }, call_id: `c${i}` } as Parameters<
          typeof f.makeApproval
        >[1]);
      }
      const decidable = await get(runPath(runId), cookie);
      expect(decidable).toContain("Approve all 2");
      expect(sections(decidable, "run-excluded-reason")).toHaveLength(0);

      // The policy now names another role: Bob still sees the requests (they were his when they arrived), but may not decide them.
      await db().policy.update({ where: { id: policy.id }, data: { roles: JSON.stringify([after]) } });
      const html = await get(runPath(runId), cookie);
      expect(sections(html, "run-request")).toHaveLength(2);
      expect(html).not.toContain("Approve all 2");
      expect(html).toContain('data-testid="run-nothing-to-decide"');
      const reasons = [...requestsOf(html).values()].map((one) => textAt(one, "run-excluded-reason"));
      expect(reasons).toEqual([
        `Not in the batch: this request needs one of these roles now: ${after}`,
        `Not in the batch: this request needs one of these roles now: ${after}`,
      ]);
      expect(visibleText(html)).toContain("2 pending requests are left out of Approve all / Deny all");
    });

    it("lists a long run 25 requests to a page, pending first, and a batch decides only its page", async () => {
      const { reviewRun } = await import("@/lib/runs/run-review");
      const { db } = await import("@/lib/db/client");
      const runId = `run_${randomUUID()}`;
      const ids: string[] = [];
      for (let i = 0; i < 27; i++) ids.push((await ask(runId, i, { arguments: { n: i } })).approval_id);
      // Oldest first, as the database orders them (two may share a millisecond).
      const order = await db().approval.findMany({ where: { runId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
      ids.splice(0, ids.length, ...order.map((a) => a.id));
      const idsOf = (html: string) => [...requestsOf(html).keys()];

      const first = await get(runPath(runId), reviewerCookie);
      expect(idsOf(first)).toEqual(ids.slice(0, 25));
      expect(visibleText(first)).toContain("27 requests you may see · this page: 1–25, pending first");
      expect(first).toContain("Approve all 25");
      expect(visibleText(first)).toContain("The run has 2 pages; the others are decided on their own pages.");
      expect(textAt(first, "run-pages")).toContain("Page 1 of 2");
      expect(/<a[^>]*data-testid="run-page-next"[^>]*>/.exec(first)?.[0]).toContain(`href="${runPath(runId)}?page=2"`);
      expect(visibleText(sections(first, "run-page-next")[0]!.split("</a>")[0]!)).toContain("Next 2 →");
      expect(first).not.toContain('data-testid="run-page-previous"');

      const second = await get(`${runPath(runId)}?page=2`, reviewerCookie);
      expect(idsOf(second)).toEqual(ids.slice(25));
      expect(second).toContain("Approve all 2");
      expect(/<a[^>]*data-testid="run-page-previous"[^>]*>/.exec(second)?.[0]).toContain(`href="${runPath(runId)}?page=1"`);
      // A page past the last is the last; anything that is not a page number is the first.
      expect(idsOf(await get(`${runPath(runId)}?page=99`, reviewerCookie))).toEqual(ids.slice(25));
      for (const bad of ["abc", "0", "-1", "1.5", "1e400"])
        expect(idsOf(await get(`${runPath(runId)}?page=${bad}`, reviewerCookie))).toEqual(ids.slice(0, 25));

      // Approve all on the first page decides those 25; the two left come first now, then the decided ones.
      const reviewer = await db().user.findFirstOrThrow({ where: { email: reviewerEmail } });
      const { outcomes } = await reviewRun(reviewer.id, { service: service.slug, runId, decision: "approve", approvalIds: ids.slice(0, 25) });
      expect(outcomes.map((o) => o.status)).toEqual(Array(25).fill("approved"));
      const after = await get(runPath(runId), reviewerCookie);
      expect(idsOf(after)).toEqual([...ids.slice(25), ...ids.slice(0, 23)]);
      expect(after).toContain("Approve all 2");
      expect(await db().approval.count({ where: { id: { in: ids.slice(25) }, status: "pending" } })).toBe(2);
    });

    it("shows the digest of unsalted redacted arguments only to who may decide, asked of the database", async () => {
      const runId = `run_${randomUUID()}`;
      // Its requester sees the run but may not decide it: redacted values hide the digest from them, and only them.
      const redacted = await ask(runId, 0, { arguments: { to: "ana@example.com", n: 1 }, requested_by: reviewerEmail });
      const plain = await ask(runId, 1, { arguments: { n: 2 }, requested_by: reviewerEmail });
      const html = requestsOf(await get(runPath(runId), reviewerCookie));
      expect(textAt(html.get(redacted.approval_id)!, "run-digest")).toBe("digest hidden (redacted values, unsalted)");
      expect(textAt(html.get(plain.approval_id)!, "run-digest")).toMatch(/^sha256:[0-9a-f]{64}$/);
      const adminHtml = await get(runPath(runId), adminCookie);
      expect(adminHtml).not.toContain("digest hidden");
    });
  });
}
