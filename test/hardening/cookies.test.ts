// Cookies and HSTS (issue: hardening). Deployed behind a TLS proxy, the app's
// public URL is https (APP_URL/AUTH_URL) while it listens on plain http:
// session and CSRF cookies are then Secure and __Secure-/__Host- prefixed,
// and pages send HSTS when the proxy reports https. Served over plain http
// (local use), cookies are HttpOnly and SameSite=Lax but not Secure, and no
// HSTS is sent. Set-Cookie headers are read as sent, over real HTTP.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { credentialsSignIn } from "../helpers/sign-in";

const attrs = (cookie: string) => cookie.split(";").map((p) => p.trim().toLowerCase());

describe("cookies and HSTS over http and behind a TLS proxy (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  let plain: AppServer;
  let proxied: AppServer;
  let user: { email: string };
  const password = randomBytes(12).toString("base64url");

  beforeAll(async () => {
    const secrets = generateSecrets();
    Object.assign(process.env, secrets);
    ctx = await useFreshDatabase("sqlite");
    const env = { ...secrets, DATABASE_URL: ctx.url, AUTH_CREDENTIALS: "1", LOG_LEVEL: "warn" };
    [plain, proxied] = await Promise.all([
      startAppServer({ port: await freePort(), env: { ...env, COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-cookie-")) } }),
      startAppServer({
        port: await freePort(),
        env: { ...env, COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-cookie-")) },
        publicUrl: "https://countersign.example",
      }),
    ]);
    const { addUser } = await import("@/lib/users/add-user");
    user = await addUser({ email: `cookie-${randomBytes(4).toString("hex")}@example.com`, password, roles: ["reviewer"] }, "cli");
  }, 180_000);

  afterAll(async () => {
    await Promise.all([plain?.stop(), proxied?.stop()]);
    await ctx?.close();
  });

  it("over plain http: HttpOnly, SameSite=Lax, not Secure, no HSTS", async () => {
    const r = await credentialsSignIn(plain.baseUrl, user.email, password);
    const session = r.setCookies.find((c) => c.startsWith("authjs.session-token="));
    expect(session).toBeDefined();
    expect(attrs(session!)).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "path=/"]));
    expect(attrs(session!)).not.toContain("secure");
    expect((await fetch(`${plain.baseUrl}/signin`)).headers.get("strict-transport-security")).toBeNull();
  });

  it("behind a TLS proxy: Secure, __Secure-/__Host- prefixed cookies and HSTS", async () => {
    const https = { "x-forwarded-proto": "https" };
    const r = await credentialsSignIn(proxied.baseUrl, user.email, password, https);
    expect(r.ok).toBe(true);
    const session = r.setCookies.find((c) => c.startsWith("__Secure-authjs.session-token="));
    expect(session).toBeDefined();
    expect(attrs(session!)).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "path=/", "secure"]));
    const csrf = r.setCookies.find((c) => c.startsWith("__Host-authjs.csrf-token="));
    expect(csrf).toBeDefined();
    expect(attrs(csrf!)).toEqual(expect.arrayContaining(["httponly", "secure", "path=/"]));
    expect(attrs(csrf!).some((a) => a.startsWith("domain="))).toBe(false);
    // No unprefixed (non-Secure) copy of any auth cookie.
    expect(r.setCookies.filter((c) => c.startsWith("authjs."))).toEqual([]);
    const page = await fetch(`${proxied.baseUrl}/signin`, { headers: https });
    expect(page.headers.get("strict-transport-security")).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
    // The session works for the reviewer's pages (Secure cookies are sent only over https, as the proxy would).
    const queue = await fetch(`${proxied.baseUrl}/approvals`, { headers: { ...https, cookie: r.session! }, redirect: "manual" });
    expect(queue.status).toBe(200);
  });
});
