// Operations (issue: hardening): SIGTERM stops an instance gracefully. With a
// long-poll in flight, a live queue stream open and a callback attempt held
// open by a slow receiver, the instance answers the long-poll (200, current
// state), ends the stream cleanly, records the cut-short callback attempt and
// hands its lease back, and exits promptly — long
// before the long-poll's wait or the receiver's delay would have run out.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { direct } from "@/lib/db/sql";
import { generateSecrets } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { signInWithPassword } from "../helpers/sign-in";

describe("graceful shutdown on SIGTERM (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let app: AppServer;
  let receiver: Server;
  let receiverUrl = "";
  const held: IncomingMessage[] = [];

  beforeAll(async () => {
    const secrets = generateSecrets();
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
    // A callback receiver that never answers within the test.
    receiver = createServer((req) => held.push(req));
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    app = await startAppServer({
      port: await freePort(),
      env: {
        ...secrets,
        DATABASE_URL: ctx.url,
        COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-shutdown-")),
        AUTH_CREDENTIALS: "1",
        LOG_LEVEL: "info",
      },
    });
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    receiver?.closeAllConnections();
    receiver?.close();
    await ctx?.close();
  });

  it("finishes in-flight work, releases its callback lease and exits promptly", async () => {
    expect(serverEnv(app.child.pid!).NODE_OPTIONS).toContain("--max-old-space-size=384"); // HEAP_LIMIT_MIB's default
    onTestFailed(() => console.log(`app output:\n${app.output().slice(-8000)}`));
    const f = await import("../helpers/fixtures");
    const { createService } = await import("@/lib/services/manage-services");
    const { findServiceForWebhook } = await import("@/lib/services/service-secrets");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const { addUser } = await import("@/lib/users/add-user");

    const created = await createService({ slug: `stop-${f.uid()}`, callbackUrl: receiverUrl }, "cli");
    const service = { ...created, auth: (await findServiceForWebhook(direct(), created.slug))! };
    const reviewer = await f.makeUser(["reviewer"]);

    // 1. A decided request whose callback the slow receiver holds open.
    const decided = await f.makeApproval(service, { tool: "mail.send" });
    await recordReview(reviewer.id, { approvalId: decided.approval_id, decision: "approve" });
    const deadline = Date.now() + 20_000;
    while (held.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(held).toHaveLength(1);
    const leased = await ctx.db.callbackDelivery.findUniqueOrThrow({
      where: { approvalId_type: { approvalId: decided.approval_id, type: "approval.decided" } },
    });
    expect(leased.leaseOwner).not.toBeNull();

    // 2. A long-poll in flight on a pending request (it would wait 25 s).
    const pending = await f.makeApproval(service, { tool: "mail.send" });
    const longPollStarted = Date.now();
    const longPoll = fetch(`${app.baseUrl}/api/v1/approvals/${pending.approval_id}?wait=25`, {
      headers: { authorization: `Bearer ${created.api_token}` },
    });

    // 3. A live queue stream, open.
    const password = randomBytes(12).toString("base64url");
    const watcher = await addUser({ email: `watch-${f.uid()}@example.com`, password, roles: ["reviewer"] }, "cli");
    const cookie = await signInWithPassword(app.baseUrl, watcher.email, password);
    const stream = await fetch(`${app.baseUrl}/api/approvals/events`, { headers: { cookie, accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const streamText = stream.text();
    await new Promise((r) => setTimeout(r, 500));

    const signalledAt = Date.now();
    const exited = new Promise<number | null>((r) => app.child.once("exit", (code) => r(code)));
    app.child.kill("SIGTERM");

    // The long-poll is answered normally, with the request's current state.
    const answer = await longPoll;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ approval_id: pending.approval_id, status: "pending" });
    expect(Date.now() - longPollStarted).toBeLessThan(15_000);
    // The stream ends cleanly (the body completes rather than erroring).
    await expect(streamText).resolves.toContain("retry:");

    await exited;
    const exitSeconds = (Date.now() - signalledAt) / 1000;
    expect(exitSeconds).toBeLessThan(10);
    await expect(fetch(`${app.baseUrl}/api/health`)).rejects.toThrow();

    // The cut-short attempt is on record and the lease is back: another
    // instance may deliver at once, and the receiver's webhook-id makes a
    // repeat harmless.
    const after = await ctx.db.callbackDelivery.findUniqueOrThrow({
      where: { approvalId_type: { approvalId: decided.approval_id, type: "approval.decided" } },
      include: { attemptsLog: true },
    });
    expect(after.leaseOwner).toBeNull();
    expect(after.status).toBe("pending");
    expect(after.attemptsLog.map((a) => a.errorClass)).toEqual(["shutdown"]);
    expect(app.output()).toContain('"msg":"SIGTERM: shutting down"');
    console.log(`graceful shutdown: exited ${exitSeconds.toFixed(1)} s after SIGTERM with a long-poll, a stream and a callback in flight`);
  }, 120_000);

  it("shuts the server down by itself when `npm start`'s launcher is killed outright", async () => {
    const orphaned = await startAppServer({
      port: await freePort(),
      env: { ...app.env, COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-orphan-")), HEAP_LIMIT_MIB: "200" },
      viaTsx: true,
    });
    try {
      const launcher = orphaned.child.pid!;
      // tsx's launcher, then scripts/start.ts, then the server it starts.
      const chain = descendants(launcher);
      expect(chain.length).toBeGreaterThanOrEqual(2);
      // npm start gives the server its memory settings: the heap ceiling HEAP_LIMIT_MIB (its default in the test above) and two malloc arenas.
      expect(serverEnv(launcher)).toMatchObject({ NODE_OPTIONS: expect.stringContaining("--max-old-space-size=200"), MALLOC_ARENA_MAX: "2" });
      // SIGKILL to the launcher alone: nothing forwards a signal to the others.
      process.kill(launcher, "SIGKILL");
      const deadline = Date.now() + 30_000;
      while (chain.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(chain.filter(alive)).toEqual([]);
      await expect(fetch(`${orphaned.baseUrl}/api/health`)).rejects.toThrow();
    } finally {
      await orphaned.stop();
    }
  }, 120_000);
});

/** The environment of the server (scripts/server/serve.mjs, titled next-server) under a launcher. */
function serverEnv(launcher: number): Record<string, string> {
  for (const pid of descendants(launcher)) {
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("next-server")) continue;
    const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
    return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  }
  throw new Error(`no server process under ${launcher}`);
}

/** A process's children, their children, and so on (Linux /proc). */
function descendants(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** Whether a process still runs (a zombie waiting to be reaped has exited). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
