// Faults (issue: hardening): a process deciding requests is killed with
// SIGKILL at random moments, 20 times; afterwards every request is either
// decided with its audit event and outbox row, or still pending with nothing
// of a decision — never half — and the audit chain holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { direct } from "@/lib/db/sql";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { startWorker } from "../helpers/worker-process";

export function crashSafetySuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`SIGKILL in the middle of decisions (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
    });
    afterAll(async () => ctx?.close());

    it("leaves no half-decided request after 20 kills at random points", async () => {
      const { createService } = await import("@/lib/services/manage-services");
      const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
      const created = await createService({ slug: `crash-${f.uid()}`, callbackUrl: "http://127.0.0.1:9/never-called" }, "cli");
      const service = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
      await f.makePolicy({ tool: "crash.*", roles: ["reviewer"], quorum: 2 });
      const reviewers = [await f.makeUser(["reviewer"]), await f.makeUser(["reviewer"])];

      let killedWhileBusy = 0;
      // What the workers answered, so a run where none decided says why.
      const answers: Record<string, unknown>[] = [];
      for (let round = 0; round < 20; round++) {
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) ids.push((await f.makeApproval(service, { tool: i % 3 ? "crash.pay" : "mail.send" })).approval_id);
        const worker = await startWorker("review-worker", { DATABASE_URL: ctx.url });
        for (const id of ids) {
          worker.send(`${id} ${reviewers[0]!.id} approve`);
          worker.send(`${id} ${reviewers[1]!.id} ${Math.random() < 0.2 ? "deny" : "approve"}`);
        }
        // The kill lands at a random point of the work itself: after a random
        // number of answers (a warm process, connected and deciding), plus a
        // random few milliseconds so it also falls inside transactions.
        const answersBeforeKill = 1 + Math.floor(Math.random() * (ids.length * 2 - 2));
        for (let seen = 0; seen < answersBeforeKill; seen++) answers.push(await worker.next());
        await new Promise((r) => setTimeout(r, Math.random() * 25));
        const answered = await ctx.db.review.count({ where: { approvalId: { in: ids } } });
        if (answered < ids.length * 2) killedWhileBusy++;
        worker.child.kill("SIGKILL");
        await new Promise((r) => worker.child.once("exit", r));
      }
      // The kills must have interrupted real work, or the test proves nothing.
      expect(killedWhileBusy).toBeGreaterThan(10);

      // "After restart": a new process reads what is durably stored.
      const checker = await startWorker("check-decisions", { DATABASE_URL: ctx.url }, [service.auth.id]);
      const report = await checker.next();
      checker.stop();
      expect(report.problems).toEqual([]);
      expect(report.chainOk).toBe(true);
      expect(Number(report.decided), JSON.stringify(answers.filter((a) => a.ok !== true).slice(0, 3))).toBeGreaterThan(0);
      expect(Number(report.decided) + Number(report.pending)).toBe(200);
    }, 600_000);
  });
}
