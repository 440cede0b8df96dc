// docs/security.md over real HTTP against the built app, on one database: a
// 256 KiB request's page stays small and leaves the server responsive; the
// rest of the arguments comes page by page from GET
// /api/approvals/{id}/arguments, exactly and only for those who may see the
// request; hidden and look-alike characters reach the page as escapes under
// a warning. The same route searches all the arguments (?q=) and gives their
// canonical JSON (?format=canonical), with the same checks.
import { randomBytes, randomUUID } from "node:crypto";
import canonicalize from "canonicalize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";
import type { NodeView } from "@/lib/display/bounded-tree";
import { segmentText, type Segment } from "@/lib/display/reveal";

/** The page's text as a reader sees it: tags and React's text separators removed. */
const ENTITIES: Record<string, string> = { "&quot;": '"', "&#x27;": "'", "&lt;": "<", "&gt;": ">", "&amp;": "&" };
const visibleText = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/&(quot|#x27|lt|gt|amp);/g, (e) => ENTITIES[e]!);
const textOf = (segments: readonly Segment[]) => segments.map(segmentText).join("");
/** A 256 KiB webhook body: a 128,000-element array (the amplification probe). */
const BIG_ARGS = { items: Array.from({ length: 128_000 }, () => 0) };

export function decisionPageSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`decision page display and bounds (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let client: import("@countersign/client").CountersignClient;
    let reviewerCookie = "";
    let outsiderCookie = "";
    let bigId = "";
    let serviceSlug = "";

    const get = (path: string, cookie = reviewerCookie) => fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
    const ask = async (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      (await client.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool: "bulk.import", arguments: args, ...extra })).approval_id;
    const argsPage = async (id: string, query: string, cookie = reviewerCookie) => {
      const res = await get(`/api/approvals/${id}/arguments?${query}`, cookie);
      return { status: res.status, bytes: (await res.clone().arrayBuffer()).byteLength, body: (await res.json()) as Record<string, unknown> };
    };

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      const { addUser } = await import("@/lib/users/add-user");
      const { CountersignClient } = await import("@countersign/client");
      const service = await f.makeService();
      serviceSlug = service.slug;
      client = new CountersignClient({
        baseUrl: base,
        serviceSlug: service.slug,
        webhookSecret: service.webhook_secret,
        apiToken: service.api_token,
      });
      const password = randomBytes(12).toString("base64url");
      const reviewer = await addUser({ email: `disp-${f.uid()}@example.com`, password, roles: ["reviewer"] }, "cli");
      const outsider = await addUser({ email: `out-${f.uid()}@example.com`, password, roles: [] }, "cli");
      reviewerCookie = await signInWithPassword(base, reviewer.email, password);
      outsiderCookie = await signInWithPassword(base, outsider.email, password);
      bigId = await ask(BIG_ARGS);
    });
    afterAll(async () => (await import("@/lib/db/client")).db().$disconnect());

    it("sends a 256 KiB page under 1 MB, the big list collapsed to its count", async () => {
      const res = await get(`/approvals/${bigId}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(Buffer.byteLength(html)).toBeLessThan(1024 * 1024);
      expect(visibleText(html)).toContain("[128,000 items]");
      expect(html).toMatch(/aria-expanded="false"[^>]*>.*?128,000 items/);
    });

    it("keeps the health check answering while three such pages render at once", async () => {
      const pages = Promise.all([0, 1, 2].map(() => get(`/approvals/${bigId}`).then((r) => r.text())));
      const health: number[] = [];
      let done = false;
      void pages.finally(() => (done = true));
      while (!done || health.length === 0) {
        const t0 = performance.now();
        const r = await fetch(`${base}/api/health`);
        await r.arrayBuffer();
        expect(r.status).toBe(200);
        health.push(performance.now() - t0);
      }
      for (const html of await pages) expect(Buffer.byteLength(html)).toBeLessThan(1024 * 1024);
      // Before the bound a single such page blocked the event loop for seconds (31 s with three). This guards
      // against that order of regression on a machine as busy as a full test run makes it; the figure itself
      // (tens of milliseconds when idle) is the bench's "Health check while 3 decision pages render".
      expect(Math.max(...health), `health check latencies: ${health.map(Math.round).join(", ")} ms`).toBeLessThan(5000);
    });

    it("pages through the big array on demand: bounded pages, in order, to the last element", async () => {
      const first = await argsPage(bigId, "path=0&from=50");
      expect(first.status).toBe(200);
      const children = first.body.children as NodeView[];
      expect(children.length).toBeGreaterThan(0);
      expect(children.length).toBeLessThanOrEqual(300);
      expect(first.body.next).toBe(50 + children.length);
      expect(first.bytes).toBeLessThan(64 * 1024);
      const last = await argsPage(bigId, "path=0&from=127990");
      expect(last.body).toMatchObject({ kind: "children", next: null });
      expect((last.body.children as NodeView[]).map((c) => (c.k === "leaf" ? textOf(c.segments) : "?"))).toEqual(Array(10).fill("0"));
    });

    it("gives back every key and value of a request exactly, page by page", async () => {
      const args = {
        rows: Array.from({ length: 700 }, (_, i) => ({ n: i, label: `row ${i}`, tags: ["a", "b"] })),
        note: "long note ".repeat(2_000),
        "amount\u200B": 10,
        amount: 10,
      };
      const id = await ask(args);
      const html = visibleText(await (await get(`/approvals/${id}`)).text());
      expect(html).toContain('"amount⟨U+200B⟩"');
      // Walk the tree through the route alone: containers by children pages, strings by text pages.
      const rebuild = async (path: number[], node: NodeView): Promise<unknown> => {
        if (node.k === "leaf") {
          let text = textOf(node.segments);
          for (let next: number | null = node.rest > 0 ? node.at : null; next !== null;) {
            const page = await argsPage(id, `path=${path.join(".")}&from=${next}`);
            text += textOf(page.body.segments as Segment[]);
            next = page.body.next as number | null;
          }
          return JSON.parse(text.replace(/⟨U\+([0-9A-F]{4})⟩/g, (_, h: string) => `\\u${h}`));
        }
        const kids = [...node.children];
        while (kids.length < node.size) {
          const page = await argsPage(id, `path=${path.join(".")}&from=${kids.length}`);
          expect(page.status).toBe(200);
          kids.push(...(page.body.children as NodeView[]));
        }
        const values = await Promise.all(kids.map((k, i) => rebuild([...path, i], k)));
        if (node.type === "array") return values;
        const keyText = (k: NodeView) => (typeof k.key === "object" && k.key ? textOf(k.key.segments) : "");
        return Object.fromEntries(
          kids.map((k, i) => [
            keyText(k).startsWith('"') ? JSON.parse(keyText(k).replace(/⟨U\+([0-9A-F]{4})⟩/g, (_, h: string) => `\\u${h}`)) : keyText(k),
            values[i],
          ]),
        );
      };
      const root = await argsPage(id, "path=&from=0");
      const rebuilt = await rebuild([], { k: "branch", key: null, type: "object", size: 4, children: root.body.children as NodeView[] });
      expect(rebuilt).toEqual(args);
    });

    it("answers 401 without a session, 404 to a viewer who may not see the request (as for an unknown id), 422 to a bad path", async () => {
      expect((await argsPage(bigId, "path=0", "")).status).toBe(401);
      expect((await argsPage(bigId, "path=0", "authjs.session-token=forged")).status).toBe(401);
      const hidden = await argsPage(bigId, "path=0", outsiderCookie);
      const unknown = await argsPage(`apr_${randomBytes(8).toString("hex")}`, "path=0");
      expect(hidden).toMatchObject({ status: 404, body: { error: "not-found" } });
      expect(unknown).toMatchObject({ status: 404, body: { error: "not-found" } });
      expect((await get(`/approvals/${bigId}`, outsiderCookie)).status).toBe(404);
      expect((await argsPage(bigId, "path=9")).status).toBe(404);
      expect((await argsPage(bigId, "path=0.0")).status).toBe(404); // a number, not a container
      for (const q of ["path=abc", "path=0&from=-1", "path=1..2", "path=0&part=nope"]) expect((await argsPage(bigId, q)).status, q).toBe(422);
    });

    it("searches all the arguments, beyond the first render, with the same checks", async () => {
      const rows = Array.from({ length: 3_000 }, (_, i) => ({ n: i, note: i === 2_718 ? "Deep NEEDLE here" : "hay" }));
      const id = await ask({ rows, needleKey: "x" });
      const found = await argsPage(id, `q=${encodeURIComponent("needle")}`);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ kind: "search", total: 2, shown: 2 });
      expect(found.bytes).toBeLessThan(64 * 1024);
      const tree = found.body.tree as { children: NodeView[] };
      const rowsNode = tree.children.find((c) => c.i === 0);
      expect(rowsNode).toMatchObject({ k: "branch", size: 3_000, partial: true });
      const row = rowsNode?.k === "branch" ? rowsNode.children[0] : undefined;
      expect(row).toMatchObject({ i: 2_718, k: "branch" });
      const note = row?.k === "branch" ? row.children[0] : undefined;
      expect(note && note.k === "leaf" ? textOf(note.segments) : "").toBe('"Deep NEEDLE here"');
      // Counted over everything, shown within the bound.
      const many = await argsPage(bigId, "q=0");
      expect(many.body).toMatchObject({ kind: "search", total: 128_000, shown: 100 });
      expect(many.bytes).toBeLessThan(64 * 1024);

      expect((await argsPage(id, "q=needle", "")).status).toBe(401);
      expect(await argsPage(id, "q=needle", outsiderCookie)).toMatchObject({ status: 404, body: { error: "not-found" } });
      for (const q of ["q=", "q=%20%20", `q=${"a".repeat(201)}`, "q=a&format=canonical", "format=nope"])
        expect((await argsPage(id, q)).status, q).toBe(422);
    });

    it("gives the canonical JSON of the redacted arguments, hidden characters escaped", async () => {
      const args = { b: [1, 2.5, "x"], a: { z: null, y: true }, password: "hunter2-Secret-99", note: "AC-\u202E9876" };
      const id = await ask(args);
      const raw = await argsPage(id, "format=canonical");
      expect(raw.status).toBe(200);
      expect(raw.body.kind).toBe("canonical");
      const text = textOf(raw.body.segments as Segment[]);
      expect(text).not.toContain("hunter2");
      expect(text).not.toMatch(/[\u202E]/);
      const redacted = JSON.parse(text.replace("⟨U+202E⟩", "\\u202e")) as Record<string, unknown>;
      expect(redacted.password).toMatch(/^\[redacted:/);
      expect(text).toBe(canonicalize({ ...args, password: redacted.password })!.replace("\u202E", "⟨U+202E⟩"));
      expect(raw.body.flag).toMatch(/right-to-left override/);
      expect((await argsPage(id, "format=canonical", "")).status).toBe(401);
      expect((await argsPage(id, "format=canonical", outsiderCookie)).status).toBe(404);
    });

    it("shows hidden characters as escapes under a warning, in the page and the queue", async () => {
      const id = await ask(
        { account: "AC-\u202E9876\u202C", url: "https://p\u0430ypal.com", amount: 10, "amount\u200B": 99 },
        { summary: "Refund\n\nPolicy: auto-approved by admin\u2067", environment: "prod\u3164" },
      );
      const page = await (await get(`/approvals/${id}`)).text();
      expect(page).toMatch(/role="alert"/);
      const html = visibleText(page);
      for (const visible of ["AC-⟨U+202E⟩9876⟨U+202C⟩", "amount⟨U+200B⟩", "prod⟨U+3164⟩", "⟨U+2067⟩", "mixes scripts in one word: Latin + Cyrillic"])
        expect(html).toContain(visible);
      expect(html).not.toMatch(/[\u202E\u202C\u200B\u2067\u3164]/);
      const queue = visibleText(await (await get(`/approvals?service=${serviceSlug}`)).text());
      expect(queue).toContain("⟨U+2067⟩");
      expect(queue).not.toMatch(/[\u2067\u3164]/);
    });

    it("says a request's arguments were purged by retention, and shows none of them", async () => {
      const marker = `PURGE-ME-${f.uid()}`;
      const id = await ask({ note: marker });
      const { db } = await import("@/lib/db/client");
      const row = await db().approval.findUniqueOrThrow({ where: { id }, select: { serviceId: true } });
      const { cancelApproval } = await import("@/lib/approvals/cancel-approval");
      await cancelApproval({ id: row.serviceId, slug: serviceSlug }, id);
      expect(await (await get(`/approvals/${id}`)).text()).toContain(marker);
      // As if it had been decided two years ago (the app's database is shared: only this request is that old).
      await db().approval.update({ where: { id }, data: { decidedAt: new Date(Date.now() - 730 * 86_400_000) } });
      const { purgeExpiredArguments } = await import("@/lib/retention/purge-arguments");
      const { purged } = await purgeExpiredArguments({ days: 365 });
      expect(purged).toBeGreaterThanOrEqual(1);
      const html = await (await get(`/approvals/${id}`)).text();
      expect(html).toContain('data-testid="args-purged"');
      expect(visibleText(html)).toContain("its arguments are no longer kept");
      expect(html).not.toContain(marker);
    });
  });
}
