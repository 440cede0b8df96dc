// Callback targets and the same-origin rule over real HTTP (docs/security.md), on
// an instance run as production is: NODE_ENV=production, CALLBACK_ALLOW_LOOPBACK
// unset, public URL https:// behind a TLS proxy (the proxy's part is played by
// X-Forwarded-Proto). Saving a URL to a blocked address is refused by the
// admin command line and the admin page action; a stored URL that turns out
// to resolve to one is never connected to, and its attempts look the same
// whether the port behind it is open or closed.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { PG_TEST_URL, useFreshDatabase, type Provider } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { credentialsSignIn } from "../helpers/sign-in";
import { postFormAction, serverActionId } from "../helpers/server-action";
import { entryPointArgs } from "../helpers/entry-points";

const BLOCKED_URLS = [
  "http://169.254.169.254/latest/meta-data/",
  "http://[::1]:9/cb",
  "http://0x7f000001:9/cb",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://[::ffff:169.254.169.254]/",
  "http://2130706433/cb",
  "http://LOCALHOST./cb",
];

/** The admin CLI as an operator runs it in production; resolves with its exit code and output. */
function adminCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, NODE_ENV: "production" };
  delete childEnv.CALLBACK_ALLOW_LOOPBACK;
  return new Promise((resolve) => {
    execFile(process.execPath, [...entryPointArgs("admin"), ...args], { env: childEnv, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export function callbackTargetSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`callback targets and same-origin, production instance (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let app: AppServer;
    let publicOrigin: string;
    let env: Record<string, string>;
    let session: string;
    let f: typeof import("../helpers/fixtures");
    const viaProxy = { "x-forwarded-proto": "https" };

    beforeAll(async () => {
      const secrets = generateSecrets();
      Object.assign(process.env, secrets);
      ctx = await useFreshDatabase(provider);
      env = { ...secrets, DATABASE_URL: ctx.url, COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-cbt-")) };
      const port = await freePort();
      publicOrigin = `https://localhost:${port}`;
      app = await startAppServer({
        port,
        publicUrl: publicOrigin,
        env: { ...env, AUTH_CREDENTIALS: "1", LOG_LEVEL: "warn", CALLBACK_RETRY_BASE_MS: "300", CALLBACK_ALLOW_LOOPBACK: "" },
      });
      f = await import("../helpers/fixtures");
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      const admin = await addUser({ email: `cbt-admin-${f.uid()}@example.com`, password, roles: ["admin"] }, "cli");
      const signedIn = await credentialsSignIn(app.baseUrl, admin.email, password, viaProxy);
      if (!signedIn.session) throw new Error(`sign-in failed: ${signedIn.location}`);
      session = signedIn.session;
    }, 180_000);

    afterAll(async () => {
      await app?.stop();
      await ctx?.close();
    });

    const servicesPage = () => `${app.baseUrl}/admin/services`;
    const asAdmin = (headers: Record<string, string> = {}) => ({ ...viaProxy, cookie: session, origin: publicOrigin, ...headers });

    it("the admin command line refuses to save a callback URL to a blocked address, in production", async () => {
      const results = await Promise.all(
        // The four (each CLI run starts a process: the page test below takes every spelling).
        BLOCKED_URLS.slice(0, 4).map(async (url) => {
          const slug = `cli-${f.uid()}`;
          return { url, slug, ...(await adminCli(["service", "add", "--slug", slug, "--callback-url", url], env)) };
        }),
      );
      for (const r of results) {
        expect(r.code, `${r.url}: ${r.stderr}`).toBe(1);
        expect(r.stderr, r.url).toContain("error: invalid-request: Callback URL refused: callbacks may not go to ");
        expect(r.stdout).toBe("");
        expect(await ctx.db.service.count({ where: { slug: r.slug } })).toBe(0);
      }
      // The same command saves an allowed URL.
      const ok = await adminCli(["service", "add", "--slug", `cli-${f.uid()}`, "--callback-url", "https://hooks.example.com/cb"], env);
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ webhook_secret: expect.stringMatching(/^whsec_/) });
    }, 120_000);

    it("the admin page actions refuse to save a callback URL to a blocked address", async () => {
      const create = serverActionId("app/admin/services/actions.ts", "createServiceAction");
      const update = serverActionId("app/admin/services/actions.ts", "updateCallbackUrlAction");
      const s = await f.makeService();
      for (const url of BLOCKED_URLS) {
        const slug = `page-${f.uid()}`;
        const created = await postFormAction(servicesPage(), create, { slug, callbackUrl: url }, asAdmin());
        expect(created.body, url).toContain("Callback URL refused: callbacks may not go to");
        expect(created.body).not.toContain("whsec_");
        expect(await ctx.db.service.count({ where: { slug } })).toBe(0);
        const updated = await postFormAction(servicesPage(), update, { slug: s.slug, callbackUrl: url }, asAdmin());
        expect(updated.body, url).toContain("Callback URL refused: callbacks may not go to");
        expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).callbackUrl).toBeNull();
      }
      // The same request with an allowed URL is saved (the encoding above reaches the action).
      const saved = await postFormAction(servicesPage(), update, { slug: s.slug, callbackUrl: "https://hooks.example.com/ok" }, asAdmin());
      expect(saved.body).toContain(`Callback URL of ${s.slug} saved.`);
      expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).callbackUrl).toBe("https://hooks.example.com/ok");
    });

    it("refuses a replayed action whose Origin matches X-Forwarded-Host or Host but not APP_URL", async () => {
      const update = serverActionId("app/admin/services/actions.ts", "updateCallbackUrlAction");
      const s = await f.makeService();
      const hostPort = new URL(app.baseUrl).host;
      const attempts: Array<Record<string, string>> = [
        { origin: "https://evil.example", "x-forwarded-host": "evil.example" }, // a proxy passing the client's header on
        { origin: `http://${hostPort}` }, // APP_URL is https: a downgraded origin
        { origin: `http://${hostPort}`, "x-forwarded-proto": "http" },
        { origin: "http://evil.example:8080", "x-forwarded-host": "evil.example:8080", "x-forwarded-proto": "http" },
      ];
      for (const headers of attempts) {
        const r = await postFormAction(
          servicesPage(),
          update,
          { slug: s.slug, callbackUrl: `https://hooks.example.com/${f.uid()}` },
          asAdmin(headers),
        );
        expect(r.body, JSON.stringify(headers)).not.toContain("saved");
        expect((await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug } })).callbackUrl, JSON.stringify(headers)).toBeNull();
      }
      const noOrigin = asAdmin();
      delete (noOrigin as Record<string, string | undefined>).origin;
      const missing = await postFormAction(servicesPage(), update, { slug: s.slug, callbackUrl: "https://hooks.example.com/none" }, noOrigin);
      expect(missing.body).not.toContain("saved");
      expect(await ctx.db.auditEvent.count({ where: { type: "service.updated", data: { contains: s.slug } } })).toBe(0);
      // APP_URL's own origin is accepted.
      const same = await postFormAction(servicesPage(), update, { slug: s.slug, callbackUrl: "https://hooks.example.com/same" }, asAdmin());
      expect(same.body).toContain(`Callback URL of ${s.slug} saved.`);
    });

    it("never connects to a stored URL whose host resolves to a blocked address; open and closed ports look alike", async () => {
      const connections: string[] = [];
      const receiver: Server = createServer((_req, res) => res.end("ok"));
      receiver.on("connection", (sock) => connections.push(String(sock.remotePort)));
      await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
      const open = (receiver.address() as { port: number }).port;
      const closed = await freePort();
      try {
        const { recordReview } = await import("@/lib/reviews/record-review");
        const reviewer = await f.makeUser(["reviewer"]);
        const stored = [
          `http://localhost:${open}/hook`,
          `http://localhost:${closed}/hook`,
          `http://127.0.0.1:${open}/hook`,
          `http://[::ffff:127.0.0.1]:${open}/hook`,
        ];
        // A name with nothing special about it that the system resolver maps to loopback
        // (this machine's own name, via /etc/hosts here): caught only by checking what it resolves to.
        const own = hostname().toLowerCase();
        const ownAddresses = await lookup(own, { all: true }).catch(() => []);
        if (ownAddresses.length > 0 && ownAddresses.every((a) => a.address.startsWith("127.") || a.address === "::1")) {
          stored.push(`http://${own}:${open}/hook`, `http://${own}:${closed}/hook`);
        }
        const deliveries: string[] = [];
        for (const url of stored) {
          const s = await f.makeService();
          // Written as an older version (or a DNS change) would leave it: straight into the row.
          await ctx.db.service.update({ where: { id: s.auth.id }, data: { callbackUrl: url } });
          const a = await f.makeApproval(s, { tool: "mail.send" });
          await recordReview(reviewer.id, { approvalId: a.approval_id, decision: "approve" });
          deliveries.push((await ctx.db.callbackDelivery.findFirstOrThrow({ where: { approvalId: a.approval_id } })).id);
        }
        // The instance's worker attempts each one at least twice (retry base 300 ms).
        await expect
          .poll(async () => Math.min(...(await Promise.all(deliveries.map((id) => ctx.db.callbackAttempt.count({ where: { deliveryId: id } }))))), {
            timeout: 30_000,
            interval: 250,
          })
          .toBeGreaterThanOrEqual(2);
        const attempts = await ctx.db.callbackAttempt.findMany({ where: { deliveryId: { in: deliveries } } });
        expect(new Set(attempts.map((a) => JSON.stringify([a.statusCode, a.errorClass])))).toEqual(
          new Set([JSON.stringify([null, "blocked-target"])]),
        );
        const rows = await ctx.db.callbackDelivery.findMany({ where: { id: { in: deliveries } } });
        expect(rows.every((d) => d.status === "pending" && d.deliveredAt === null)).toBe(true);
        expect(connections).toEqual([]);
      } finally {
        await new Promise<void>((r) => receiver.close(() => r()));
      }
    });
  });
}
