// The container image (Dockerfile; docs/operations.md, "Container image"),
// built with Debian's podman on a Node base made on this machine
// (test/helpers/podman.ts) and run as an operator would: production mode,
// secrets from an env file, the SQLite database in the /data volume. Then,
// over HTTP from outside the container: its health, a reviewer made with
// the image's own admin command line signing in, a signed webhook ingested,
// the reviewer's approval, and the decision consumed exactly once with a
// receipt that verifies. The server must run as the image's unprivileged
// user, without build tools or dev dependencies, and stop cleanly on SIGTERM.
//
// `npm test` runs this file in a lane of its own (scripts/test.mjs). Where
// podman or runc is not installed it is skipped, saying why.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { CountersignClient } from "@countersign/client";
import { SECRET_NAMES, VAPID_NAMES } from "@/lib/local-secrets";
import { freePort } from "../helpers/ports";
import { buildTestImage, ensureBaseImage, podman, podmanMissing, podmanNow, type TestImage } from "../helpers/podman";
import { postFormAction, serverActionId } from "../helpers/server-action";
import { signInWithPassword } from "../helpers/sign-in";

const missing = podmanMissing();
if (missing) console.warn(`test/container/image.test.ts: the container image test is skipped: ${missing}`);

const log = (line: string) => console.log(`container: ${line}`);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

describe.skipIf(missing !== null)("the container image", () => {
  const name = `countersign-test-${process.pid}`;
  const volume = `${name}-data`;
  const dir = mkdtempSync(join(tmpdir(), "cs-container-"));
  let image: TestImage | null = null;
  let base = "";
  let baseUrl = "";
  let madeSettings: Record<string, string> = {};
  const logs = async () => {
    const r = await podman(["logs", name], { allowFailure: true });
    return (r.stdout + r.stderr).slice(-6000);
  };
  // Every step goes through podman and the container, on a machine that `npm test` keeps busy: the limits below are generous.
  const exec = async (...command: string[]) => (await podman(["exec", name, ...command])).stdout;
  /** The image's own admin command line, as an operator runs it in the container. */
  const admin = async (...args: string[]) => JSON.parse(await exec("npm", "run", "--silent", "admin", "--", ...args)) as Record<string, unknown>;

  // Should Vitest end without its clean-up, the container does not outlive it.
  const removeContainer = () => podmanNow(["rm", "--force", "--volumes", name]);
  process.once("exit", removeContainer);

  beforeAll(async () => {
    let started = Date.now();
    base = await ensureBaseImage(log);
    log(`base ${base} ready in ${seconds(started)}`);
    started = Date.now();
    image = await buildTestImage(process.cwd(), base, log);
    log(`image built in ${seconds(started)}`);

    started = Date.now();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    // The env file as an operator makes it for compose.yaml (the image's `npm run env-file`), then this run's address.
    const made = await podman(["run", "--rm", "--network=none", image.tag, "npm", "run", "--silent", "env-file"]);
    madeSettings = Object.fromEntries(
      made.stdout
        .trim()
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    const settings = { ...madeSettings, PORT: String(port), APP_URL: baseUrl, AUTH_URL: baseUrl, AUTH_CREDENTIALS: "1" };
    const envFile = join(dir, "countersign.env");
    writeFileSync(
      envFile,
      Object.entries(settings)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(""),
      { mode: 0o600 },
    );
    await podman(["volume", "create", volume]);
    await podman(["run", "--detach", "--name", name, "--network=host", "--env-file", envFile, "--volume", `${volume}:/data`, image.tag]);
    for (const deadline = Date.now() + 180_000; ;) {
      const state = (await podman(["inspect", "--format", "{{.State.Status}}", name])).stdout.trim();
      if (state !== "running") throw new Error(`the container is ${state}:\n${await logs()}`);
      const ok = await fetch(`${baseUrl}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`the container's app did not answer in time:\n${await logs()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    log(`container up in ${seconds(started)}`);
  }, 60 * 60_000);

  afterAll(async () => {
    await podman(["rm", "--force", "--volumes", name], { allowFailure: true });
    await podman(["volume", "rm", "--force", volume], { allowFailure: true });
    await image?.remove();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("runs its server as the unprivileged user, without build tools or dev dependencies, its database in /data", async () => {
    onTestFailed(async () => console.log(await logs()));
    expect((await exec("id", "-u")).trim()).toBe("10001");
    // Every process in the container, the server included.
    const users = (await podman(["top", name, "user", "comm"])).stdout.trim().split("\n").slice(1);
    expect(users.length).toBeGreaterThanOrEqual(2);
    for (const line of users) expect(line.split(/\s+/)[0]).toBe("countersign");
    expect(users.some((line) => line.includes("next-server"))).toBe(true);

    expect(await exec("sh", "-c", "for t in gcc g++ cc make python3; do command -v $t || true; done")).toBe("");
    // No package the lockfile marks as a dev dependency is there (this checkout's lockfile: the one the image was built from).
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([path, p]) => path && (p.dev || p.devOptional));
    expect(devOnly.map(([path]) => path)).toEqual(expect.arrayContaining(["node_modules/vitest", "node_modules/typescript"]));
    const present = await exec("sh", "-c", 'for p in "$@"; do test -e "$p" && echo "$p"; done; true', "sh", ...devOnly.map(([path]) => path));
    expect(present).toBe("");
    expect(await exec("node", "-e", "require.resolve('better-sqlite3'); require.resolve('next'); console.log('ok')")).toBe("ok\n");
    // The database and its owner: the volume, the server's user.
    expect((await exec("stat", "-c", "%u %n", "/data/countersign.db")).trim()).toBe("10001 /data/countersign.db");
    // The app's own files are not the server's to change.
    expect((await exec("stat", "-c", "%u", "/app/.next/BUILD_ID", "/app/lib/env.ts")).trim().split("\n")).toEqual(["0", "0"]);
    const config = JSON.parse((await podman(["image", "inspect", "--format", "{{json .Config}}", image!.tag])).stdout) as {
      Env: string[];
      Volumes: Record<string, unknown>;
    };
    expect(config.Env).toContain("NODE_ENV=production");
    // What `npm run env-file` wrote: every secret production requires, a Web Push pair, compose's database password.
    expect(Object.keys(madeSettings).sort()).toEqual(["APP_URL", ...SECRET_NAMES, ...VAPID_NAMES, "POSTGRES_PASSWORD"].sort());
    expect(Object.keys(config.Volumes)).toEqual(["/data"]);
  }, 120_000);

  it("is healthy by its HEALTHCHECK and /api/health", async () => {
    onTestFailed(async () => console.log(await logs()));
    // podman runs health checks from systemd timers, which this machine lacks: run the image's check once, by hand.
    expect((await podman(["healthcheck", "run", name], { allowFailure: true })).code).toBe(0);
    expect((await podman(["inspect", "--format", "{{.State.Health.Status}}", name])).stdout.trim()).toBe("healthy");
    const health = await fetch(`${baseUrl}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${baseUrl}/api/ready`);
    expect(await ready.json()).toEqual({ status: "ready" });
  }, 120_000);

  it("signs a reviewer in, ingests a signed webhook, and consumes the approved decision exactly once", async () => {
    onTestFailed(async () => console.log(await logs()));
    const email = `reviewer-${randomBytes(4).toString("hex")}@example.com`;
    const password = randomBytes(18).toString("base64url");
    const user = await admin("user", "add", "--email", email, "--password", password, "--role", "reviewer");
    expect(user).toMatchObject({ email });
    const service = (await admin("service", "add", "--slug", `svc-${randomBytes(4).toString("hex")}`)) as {
      slug: string;
      webhook_secret: string;
      api_token: string;
    };

    const client = new CountersignClient({ baseUrl, serviceSlug: service.slug, webhookSecret: service.webhook_secret, apiToken: service.api_token });
    const call = { run_id: `run_${randomUUID()}`, call_id: "c1", tool: "payments.refund", arguments: { order: "A-1", amount: 12 } };
    const requested = await client.requestApproval(call);
    expect(requested.status).toBe("pending");

    const cookie = await signInWithPassword(baseUrl, email, password);
    const manifest = await exec("cat", ".next/server/server-reference-manifest.json");
    const submitReview = serverActionId("app/approvals/[id]/actions.ts", "submitReview", manifest);
    const approvalId = requested.approval_id;
    const review = await postFormAction(
      `${baseUrl}/approvals/${approvalId}`,
      submitReview,
      { approvalId, decision: "approve" },
      { cookie, origin: baseUrl },
    );
    expect(review.status).toBe(200);
    expect(review.body).toContain("Request approved.");

    const consumed = await client.consume(approvalId, call);
    expect(consumed.decision).toBe("approved");
    const receipt = await client.verifyReceipt(consumed.receipt);
    expect(receipt).toMatchObject({ approval_id: approvalId, service: service.slug, decision: "approved", tool: call.tool });
    await expect(client.consume(approvalId, call)).rejects.toMatchObject({ code: "already-consumed", status: 409 });
  }, 240_000);

  it("stops on SIGTERM after the server's own shutdown", async () => {
    onTestFailed(async () => console.log(await logs()));
    await podman(["stop", "--time", "30", name]);
    // 143: the server's exit after a clean shutdown on SIGTERM (scripts/server/serve.mjs); a kill would be 137.
    expect((await podman(["inspect", "--format", "{{.State.ExitCode}}", name])).stdout.trim()).toBe("143");
    expect(await logs()).toContain("SIGTERM: shutting down");
  }, 120_000);
});
