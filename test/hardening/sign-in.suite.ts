// Sign-in protection (issue: hardening), over real HTTP against
// the running app: credentials sign-in is rate limited per account and per
// client address, the limits are counted in the database (on PostgreSQL the
// attempts alternate between two instances), the answer never tells whether
// an email exists, and every sign-in and failure is audited.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { credentialsSignIn } from "../helpers/sign-in";

export function signInSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`sign-in protection (${provider})`, () => {
    const bases = [app?.baseUrl ?? "", app?.secondBaseUrl ?? app?.baseUrl ?? ""];
    let db: import("@/lib/db/client").Db;
    let addUser: typeof import("@/lib/users/add-user").addUser;

    beforeAll(async () => {
      db = (await import("@/lib/db/client")).db();
      ({ addUser } = await import("@/lib/users/add-user"));
    });

    const newPassword = () => randomBytes(12).toString("base64url");
    const email = (tag: string) => `${tag}-${randomBytes(4).toString("hex")}@example.com`;
    const ip = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    /** Fixed one-minute windows: start a burst early in a window so it does not straddle two. */
    async function freshWindow(burstSeconds: number) {
      const into = (Date.now() / 1000) % 60;
      if (into > 60 - burstSeconds - 5) await new Promise((r) => setTimeout(r, (60 - into + 0.5) * 1000));
    }

    it("answers a wrong password and an unknown email alike, and audits both and a success", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("known"), password, roles: ["reviewer"] }, "cli");
      const unknown = email("unknown");
      const wrong = await credentialsSignIn(bases[0]!, user.email, "not-the-password", { "x-forwarded-for": ip() });
      const missing = await credentialsSignIn(bases[1]!, unknown, "not-the-password", { "x-forwarded-for": ip() });
      expect(wrong.ok).toBe(false);
      expect(missing.ok).toBe(false);
      expect(wrong.location).toMatch(/\/signin\?error=CredentialsSignin&code=refused$/);
      expect(missing.location).toBe(wrong.location.replace(bases[0]!, bases[1]!));
      expect((await credentialsSignIn(bases[0]!, user.email, password, { "x-forwarded-for": ip() })).ok).toBe(true);

      const events = await db.auditEvent.findMany({ where: { type: { in: ["user.signed_in", "user.sign_in_failed"] } }, orderBy: { seq: "asc" } });
      const mine = events.map((e) => ({ type: e.type, data: JSON.parse(e.data) as Record<string, string> })).filter((e) => [user.email, unknown].includes(e.data.user!));
      expect(mine).toEqual([
        { type: "user.sign_in_failed", data: { user: user.email, method: "credentials" } },
        { type: "user.sign_in_failed", data: { user: unknown, method: "credentials" } },
        { type: "user.signed_in", data: { user: user.email, method: "credentials" } },
      ]);
    });

    it("locks an account after 10 failures a minute, even from many addresses and instances, even with the right password", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("target"), password, roles: ["reviewer"] }, "cli");
      await freshWindow(10);
      for (let i = 0; i < 10; i++) {
        const r = await credentialsSignIn(bases[i % 2]!, user.email, `guess-${i}`, { "x-forwarded-for": ip() });
        expect(r.location).toMatch(/code=refused$/);
      }
      const blocked = await credentialsSignIn(bases[0]!, user.email, password, { "x-forwarded-for": ip() });
      expect(blocked.ok).toBe(false);
      expect(blocked.location).toMatch(/code=rate-limited$/);
      const audited = await db.auditEvent.findMany({ where: { type: "user.sign_in_failed" } });
      expect(audited.filter((e) => e.data.includes(user.email) && e.data.includes('"reason":"rate-limited"'))).toHaveLength(1);
    }, 60_000);

    it("limits one address to 30 attempts a minute across accounts and instances", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("innocent"), password, roles: ["reviewer"] }, "cli");
      const address = ip();
      await freshWindow(20);
      for (let i = 0; i < 30; i++) {
        const r = await credentialsSignIn(bases[i % 2]!, email("spray"), "guess", { "x-forwarded-for": address });
        expect(r.location).toMatch(/code=refused$/);
      }
      expect((await credentialsSignIn(bases[1]!, user.email, password, { "x-forwarded-for": address })).location).toMatch(/code=rate-limited$/);
      // The account itself is not locked: from another address it signs in.
      expect((await credentialsSignIn(bases[0]!, user.email, password, { "x-forwarded-for": ip() })).ok).toBe(true);
    }, 90_000);
  });
}
