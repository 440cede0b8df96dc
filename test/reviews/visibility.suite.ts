// docs/security.md "Who sees a request" and the digest rule, over real HTTP
// against the running app: pages and queue as each kind of signed-in person
// sees them. A request's page is served to its eligible reviewers, its
// requester, admins and auditors; anyone else gets the 404 of an unknown id.
// The digest of an unsalted request with redacted values is shown only to
// those who may decide it and to admins.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { signInWithPassword } from "../helpers/sign-in";

type Person = { email: string; cookie: string };

export function visibilitySuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`who sees a request (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let db: import("@/lib/db/client").Db;
    const tag = randomBytes(4).toString("hex");
    const role = `vis-${tag}`;
    const tool = `vis${tag}.pay`;
    let people: Record<"nobody" | "otherRole" | "auditor" | "requester" | "decider" | "admin", Person>;
    // Unsalted with a redacted value; unsalted without one; salted with one.
    let redacted: { approval_id: string; args_digest: string };
    let plain: { approval_id: string; args_digest: string };
    let salted: { approval_id: string; args_digest: string };

    async function person(roles: string[], email = `vis-${randomBytes(4).toString("hex")}@example.com`): Promise<Person> {
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      const user = await addUser({ email, password, roles }, "cli");
      return { email: user.email, cookie: await signInWithPassword(base, user.email, password) };
    }
    const get = (path: string, who: Person) => fetch(`${base}${path}`, { headers: { cookie: who.cookie }, redirect: "manual" });

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      db = (await import("@/lib/db/client")).db();
      const service = await f.makeService();
      await f.makePolicy({ tool: `vis${tag}.*`, roles: [role], quorum: 1 });
      people = {
        nobody: await person([]),
        otherRole: await person(["reviewer"]),
        auditor: await person(["auditor"]),
        // No role: the requester sees their requests as their requester only.
        requester: await person([], `req-${tag}@example.com`),
        decider: await person([role]),
        admin: await person(["admin"]),
      };
      // Named by a spelling of the requester's address (docs/security.md normalization).
      const requested_by = `Requester <MAILTO:REQ-${tag}+agent@Example.com.>`;
      redacted = await f.makeApproval(service, { tool, requested_by, arguments: { account: "AC-1", password: "hunter2-hunter2" } });
      plain = await f.makeApproval(service, { tool, requested_by, arguments: { account: "AC-2", amount: 10 } });
      salted = await f.makeApproval(service, { tool, requested_by, arguments: { account: "AC-3", password: "hunter2-hunter2" } });
      // The salt itself is h1's part of docs/security.md; only "has a salt" matters here.
      await db.approval.update({ where: { id: salted.approval_id }, data: { argsSalt: randomBytes(16).toString("base64url") } });
      const stored = await db.approval.findUniqueOrThrow({ where: { id: redacted.approval_id } });
      expect(stored.redactedArgs).toContain("[redacted:");
    });
    afterAll(async () => db?.$disconnect());

    it("answers a no-role user (and a reviewer of other roles) with the 404 of an unknown id, and an empty queue", async () => {
      const unknown = await get("/approvals/apr_doesnotexist", people.nobody);
      expect(unknown.status).toBe(404);
      const unknownBody = await unknown.text();
      for (const who of [people.nobody, people.otherRole]) {
        for (const a of [redacted, plain, salted]) {
          const r = await get(`/approvals/${a.approval_id}`, who);
          const body = await r.text();
          expect(r.status, who.email).toBe(404);
          expect(body).not.toContain(tool);
          expect(body).not.toContain(a.args_digest);
          expect(body).not.toContain("AC-");
          // The same page as for an unknown id, apart from per-response nonces and ids.
          const strip = (html: string) => html.replace(/nonce="[^"]*"/g, "").replace(/apr_[a-z0-9]+/g, "").length;
          expect(Math.abs(strip(body) - strip(unknownBody))).toBeLessThan(200);
        }
        const queue = await get(`/approvals?tool=${encodeURIComponent(tool)}`, who);
        expect(queue.status).toBe(200);
        const html = await queue.text();
        for (const a of [redacted, plain, salted]) expect(html).not.toContain(a.approval_id);
        const all = await (await get("/approvals", who)).text();
        expect(all).not.toContain(tool);
      }
    });

    it("shows an auditor every request, with no way to act, and hides the guessable digest", async () => {
      const queue = await (await get(`/approvals?tool=${encodeURIComponent(tool)}`, people.auditor)).text();
      for (const a of [redacted, plain, salted]) expect(queue).toContain(a.approval_id);
      const page = await get(`/approvals/${redacted.approval_id}`, people.auditor);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(tool);
      expect(html).toContain('data-testid="why-not"');
      expect(html).not.toMatch(/>\s*Approve\s*</);
      expect(html).toContain('data-testid="args-digest-hidden"');
      expect(html).not.toContain(redacted.args_digest);
      // No redacted value: the digest reveals nothing more than the arguments shown.
      const plainHtml = await (await get(`/approvals/${plain.approval_id}`, people.auditor)).text();
      expect(plainHtml).toContain(plain.args_digest);
      // Salted: not a guessing oracle, shown to everyone who sees the request.
      const saltedHtml = await (await get(`/approvals/${salted.approval_id}`, people.auditor)).text();
      expect(saltedHtml).toContain(salted.args_digest);
    });

    it("shows the requester their own request, never lets them act, and hides the guessable digest", async () => {
      const html = await (await get(`/approvals/${redacted.approval_id}`, people.requester)).text();
      expect(html).toContain(tool);
      expect(html).toMatch(/you requested this call/);
      expect(html).not.toMatch(/>\s*Approve\s*</);
      expect(html).toContain('data-testid="args-digest-hidden"');
      expect(html).not.toContain(redacted.args_digest);
      const queue = await (await get(`/approvals?tool=${encodeURIComponent(tool)}`, people.requester)).text();
      expect(queue).toContain(redacted.approval_id);
      const { findQueue } = await import("@/lib/queue/find-queue");
      const requester = await db.user.findUniqueOrThrow({ where: { email: people.requester.email } });
      const q = await findQueue(requester.id, { tool });
      expect(q.canAct!.count).toBe(0);
      expect(q.waiting!.rows.map((r) => r.id).sort()).toEqual([redacted, plain, salted].map((a) => a.approval_id).sort());
    });

    it("shows a decider and an admin the digest", async () => {
      for (const who of [people.decider, people.admin]) {
        const html = await (await get(`/approvals/${redacted.approval_id}`, who)).text();
        expect(html, who.email).toContain(redacted.args_digest);
        expect(html, who.email).not.toContain('data-testid="args-digest-hidden"');
      }
      const decider = await (await get(`/approvals/${redacted.approval_id}`, people.decider)).text();
      expect(decider).toMatch(/>\s*Approve\s*</);
    });

    it("refuses a requested_by that is not an email address: 422 at data.requested_by, not echoed, nothing stored", async () => {
      const { signWebhook, unixNow } = await import("@countersign/client");
      const service = await f.makeService();
      for (const requested_by of ["agent:billing-bot-SECRET", "ana", "Ana <>", "mailto:", "ana@localhost"]) {
        const run_id = `run-${randomBytes(6).toString("hex")}`;
        const body = Buffer.from(JSON.stringify({ type: "approval.requested", data: { run_id, call_id: "c1", tool, arguments: {}, requested_by } }));
        const id = `msg_${randomBytes(8).toString("hex")}`;
        const ts = unixNow();
        const r = await fetch(`${base}/api/v1/webhooks/${service.slug}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "webhook-id": id,
            "webhook-timestamp": String(ts),
            "webhook-signature": signWebhook({ secret: service.webhook_secret, id, timestamp: ts, body }),
          },
          body,
        });
        expect(r.status, requested_by).toBe(422);
        const text = await r.text();
        expect(JSON.parse(text)).toMatchObject({ error: "invalid-request", issues: [{ path: "data.requested_by" }] });
        expect(text).not.toContain(requested_by);
        expect(await db.approval.count({ where: { runId: run_id } })).toBe(0);
      }
    });

    it("never puts a digest in the queue", async () => {
      for (const who of [people.decider, people.auditor, people.requester]) {
        const html = await (await get(`/approvals?tool=${encodeURIComponent(tool)}`, who)).text();
        for (const a of [redacted, plain, salted]) expect(html, who.email).not.toContain(a.args_digest.slice(7));
      }
    });
  });
}
