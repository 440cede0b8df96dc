// Who can decide (CONTRACT §21): the executor's state answer carries
// `waiting_on` (per role that decides the request now: approvals still
// needed, people who could give one now), read through the TypeScript
// client over HTTP against the live app; the request's page names those
// people. The requester, a disabled account, a role whose time ended and
// someone who already voted are not counted; once decided, nobody is waited on.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { appFor } from "../helpers/app";

type Client = typeof import("@countersign/client");

export function waitingOnSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`who can decide a request (${provider})`, () => {
    let f: typeof import("../helpers/fixtures");
    let lib: {
      recordReview: typeof import("@/lib/reviews/record-review").recordReview;
      getReviewView: typeof import("@/lib/reviews/get-review-view").getReviewView;
      addUser: typeof import("@/lib/users/add-user").addUser;
      disableUser: typeof import("@/lib/users/disable-user").disableUser;
      setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
    };
    let client: Client;

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      client = await import("@countersign/client");
      lib = {
        recordReview: (await import("@/lib/reviews/record-review")).recordReview,
        getReviewView: (await import("@/lib/reviews/get-review-view")).getReviewView,
        addUser: (await import("@/lib/users/add-user")).addUser,
        disableUser: (await import("@/lib/users/disable-user")).disableUser,
        setPolicy: (await import("@/lib/policies/set-policy")).setPolicy,
      };
    });

    /** The executor's client for a service, against the live app. */
    const executorFor = (svc: { slug: string; webhook_secret: string; api_token: string }) =>
      new client.CountersignClient({ baseUrl: app!.baseUrl, serviceSlug: svc.slug, webhookSecret: svc.webhook_secret, apiToken: svc.api_token });

    it("counts per role who may still decide, names them on the page, and empties once decided", async () => {
      const { db } = await import("@/lib/db/client");
      const svc = await f.makeService();
      const countersign = executorFor(svc);
      const role = `wo-${f.uid()}`;
      const other = `wx-${f.uid()}`;
      const tool = `wait.${f.uid()}`;
      await lib.setPolicy({ name: `wo-${f.uid()}`, tool, roles: [role, other], quorum: 2, ttl: 3600 }, "cli", { anyway: true });
      const person = (name: string, roles: string[]) => lib.addUser({ email: `${name}-${f.uid()}@example.com`, name, roles }, "cli");
      const ana = await person("Ana", [role]); // the requester
      const ria = await person("Ria", [role]);
      const rex = await person("Rex", [role, other]);
      const dis = await person("Dis", [role]);
      await lib.disableUser(dis.email, "cli");
      const ended = await person("Old", [role]);
      await db().userRole.update({
        where: { userId_role_viaGroup: { userId: ended.id, role, viaGroup: "" } },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });

      const created = await countersign.requestApproval({
        run_id: `run_${randomUUID()}`,
        call_id: "c1",
        tool,
        arguments: { amount: 5 },
        requested_by: ana.email,
      });
      const id = created.approval_id;
      expect((await countersign.getApproval(id)).waiting_on).toEqual([
        { role, needed: 2, eligible: 2 },
        { role: other, needed: 2, eligible: 1 },
      ]);

      await lib.recordReview(ria.id, { approvalId: id, decision: "approve" });
      expect((await countersign.getApproval(id)).waiting_on).toEqual([
        { role, needed: 1, eligible: 1 },
        { role: other, needed: 1, eligible: 1 },
      ]);
      // The page names them, for whoever may see the request (here the requester, who may not decide it).
      const page = await lib.getReviewView(id, ana.id);
      expect(page!.waitingOn).toEqual([
        { role, needed: 1, eligible: 1, people: [{ email: rex.email, name: "Rex" }] },
        { role: other, needed: 1, eligible: 1, people: [{ email: rex.email, name: "Rex" }] },
      ]);
      // The wire form carries counts, never names.
      expect(JSON.stringify(await countersign.getApproval(id))).not.toContain(rex.email);

      await lib.recordReview(rex.id, { approvalId: id, decision: "deny", reason: "not now" });
      const decided = await countersign.getApproval(id);
      expect(decided.status).toBe("denied");
      expect(decided.waiting_on).toEqual([]);
      expect((await lib.getReviewView(id, ana.id))!.waitingOn).toEqual([]);
    });

    it("says when nobody can decide it now", async () => {
      const svc = await f.makeService();
      const countersign = executorFor(svc);
      const role = `wn-${f.uid()}`;
      const tool = `nobody.${f.uid()}`;
      await lib.setPolicy({ name: `wn-${f.uid()}`, tool, roles: [role], quorum: 1, ttl: 3600 }, "cli", { anyway: true });
      const created = await countersign.requestApproval({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: {} });
      expect((await countersign.getApproval(created.approval_id)).waiting_on).toEqual([{ role, needed: 1, eligible: 0 }]);
    });
  });
}
