// Sign-in protection (issue: hardening; docs/security.md abuse limits), over real
// HTTP against the running app: credentials sign-in is rate limited per client
// address (the socket address: each test client sends from its own loopback
// address) and per (account, address), counted in the database (on
// PostgreSQL the attempts alternate between two instances); a flood of wrong
// passwords slows an account but does not lock its owner out; the answer never
// tells whether an email exists; sign-ins, failures and sign-outs are audited
// (a sign-in and a sign-out as the user's own acts), and rate-limited attempts
// are counted per minute rather than audited one by one.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { csrfFrom, loopbackAddress, roomForBurst, send, signInFrom } from "../helpers/from-address";
import { serverActionId } from "../helpers/server-action";
import { addressKey } from "@/lib/http/client-address";
import { refusalSnapshot, refusalsSince } from "../helpers/refusals";
import { ACCOUNT_FREE_FAILURES, accountDelayMs, SIGNIN_PER_ADDRESS_PER_MINUTE } from "@/lib/auth/sign-in-limits";

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

    it("answers a wrong password and an unknown email alike, and audits both and a success", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("known"), password, roles: ["reviewer"] }, "cli");
      const unknown = email("unknown");
      const wrong = await signInFrom(bases[0]!, loopbackAddress(), user.email, "not-the-password");
      const missing = await signInFrom(bases[1]!, loopbackAddress(), unknown, "not-the-password");
      expect(wrong.ok).toBe(false);
      expect(missing.ok).toBe(false);
      expect(wrong.location).toMatch(/\/signin\?error=CredentialsSignin&code=refused$/);
      expect(missing.location).toBe(wrong.location.replace(bases[0]!, bases[1]!));
      expect((await signInFrom(bases[0]!, loopbackAddress(), user.email, password)).ok).toBe(true);

      const events = await db.auditEvent.findMany({ where: { type: { in: ["user.signed_in", "user.sign_in_failed"] } }, orderBy: { seq: "asc" } });
      const mine = events
        .map((e) => ({ type: e.type, actor: e.actor, data: JSON.parse(e.data) as Record<string, string> }))
        .filter((e) => [user.email, unknown].includes(e.data.user!));
      // A sign-in is the user's own act; a refused one is the system's record.
      expect(mine).toEqual([
        { type: "user.sign_in_failed", actor: "system", data: { user: user.email, method: "credentials" } },
        { type: "user.sign_in_failed", actor: "system", data: { user: unknown, method: "credentials" } },
        { type: "user.signed_in", actor: `user:${user.email}`, data: { user: user.email, method: "credentials" } },
      ]);
    });

    it("records a sign-out as the user's own act, naming them as a sign-in does, from the header's button and from Auth.js's endpoint", async () => {
      const signedOut = async (user: string) =>
        (await db.auditEvent.findMany({ where: { type: "user.signed_out" }, orderBy: { seq: "asc" } }))
          .map((e) => ({ actor: e.actor, data: JSON.parse(e.data) as Record<string, string> }))
          .filter((e) => e.data.user === user);
      const stillSignedIn = async (session: string) =>
        (await fetch(`${bases[0]}/approvals`, { headers: { cookie: session }, redirect: "manual" })).status === 200;

      // The header's "Sign out" button: its server action, as the browser posts it (the form's data, no state).
      const password = newPassword();
      const viaButton = await addUser({ email: email("leaves"), password, roles: ["reviewer"] }, "cli");
      const from = loopbackAddress();
      const first = await signInFrom(bases[0]!, from, viaButton.email, password);
      expect(first.ok).toBe(true);
      expect(await stillSignedIn(first.session!)).toBe(true);
      const button = await fetch(`${bases[0]}/approvals`, {
        method: "POST",
        redirect: "manual",
        headers: {
          accept: "text/x-component",
          "next-action": serverActionId("app/actions/auth.ts", "signOutAction"),
          cookie: first.session!,
          origin: new URL(bases[0]!).origin,
        },
        body: (() => {
          const form = new FormData();
          form.set("0", JSON.stringify(["$K1"]));
          return form;
        })(),
      });
      expect(button.status).toBeLessThan(400);
      expect(await signedOut(viaButton.email)).toEqual([{ actor: `user:${viaButton.email}`, data: { user: viaButton.email } }]);
      expect(await stillSignedIn(first.session!)).toBe(false);

      // Auth.js's own sign-out endpoint (a form post with its CSRF token): the same record.
      const other = await addUser({ email: email("leaves-too"), password, roles: ["reviewer"] }, "cli");
      const second = await signInFrom(bases[1]!, from, other.email, password);
      expect(second.ok).toBe(true);
      const csrf = await csrfFrom(bases[1]!, from);
      const out = await send(bases[1]!, "/api/auth/signout", {
        from,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: [second.session!, ...csrf.cookies.map((c) => c.split(";")[0])].join("; "),
        },
        body: new URLSearchParams({ csrfToken: csrf.token }).toString(),
      });
      expect(out.status).toBe(302);
      expect(await signedOut(other.email)).toEqual([{ actor: `user:${other.email}`, data: { user: other.email } }]);
      expect(await stillSignedIn(second.session!)).toBe(false);
    });

    // docs/security.md replaced the old rule (10 failures a minute locked the account, even
    // for its owner with the right password): a flood slows the account down.
    it("slows an account flooded with wrong passwords from many addresses, and its owner still signs in from their own", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("target"), password, roles: ["reviewer"] }, "cli");
      const attackers = [loopbackAddress(), loopbackAddress()];
      const guesses = ACCOUNT_FREE_FAILURES + 4;
      const took: number[] = [];
      for (let i = 0; i < guesses; i++) {
        const r = await signInFrom(bases[i % 2]!, attackers[i % 2]!, user.email, `guess-${i}`);
        expect(r.location).toMatch(/code=refused$/);
        took.push(r.ms);
      }
      // Each guess past the free ones waits longer before it is checked.
      expect(took[guesses - 1]!).toBeGreaterThanOrEqual(accountDelayMs(guesses - 1) - 50);
      const owner = await signInFrom(bases[0]!, loopbackAddress(), user.email, password);
      expect(owner.ok).toBe(true);
      expect(owner.ms).toBeGreaterThanOrEqual(accountDelayMs(guesses) - 50);
      expect(accountDelayMs(guesses)).toBeGreaterThan(0);
    }, 90_000);

    it("limits one address to 30 attempts a minute across accounts and instances, whatever X-Forwarded-For says, and counts the refusals instead of auditing each", async () => {
      const password = newPassword();
      const user = await addUser({ email: email("innocent"), password, roles: ["reviewer"] }, "cli");
      const tally = { kind: "user.sign_in_refused", subject: "(sign-in)", reason: "rate-limited" };
      // Every attempt claims another address in the headers a client can
      // write: none of them counts, only the socket's address does.
      const forged = () => ({
        "x-forwarded-for": `203.0.113.${randomBytes(1)[0]}`,
        "x-countersign-client-address": `198.51.100.${randomBytes(1)[0]}`,
      });
      // The burst (33 attempts) has to fall in one of the limit's minutes; the
      // counts the database kept say whether it did. One that straddled a
      // minute's edge all the same (the machine slowed down mid-burst) proves
      // nothing about the limit and runs again from a new address.
      for (let run = 1; ; run++) {
        const address = loopbackAddress();
        await roomForBurst(bases[0]!, SIGNIN_PER_ADDRESS_PER_MINUTE + 3);
        const before = await refusalSnapshot(db, tally);
        const spray: string[] = [];
        for (let i = 0; i < SIGNIN_PER_ADDRESS_PER_MINUTE; i++) {
          spray.push((await signInFrom(bases[i % 2]!, address, email("spray"), "guess", forged())).location);
        }
        const limited: string[] = [];
        for (let i = 0; i < 3; i++) {
          limited.push((await signInFrom(bases[(i + 1) % 2]!, address, user.email, password, forged())).location);
        }
        const minutes = await db.rateLimitBucket.findMany({ where: { key: `signin:ip:${addressKey(address)}` }, select: { count: true } });
        if (minutes.length > 1 && run < 3) continue;
        expect(minutes).toEqual([{ count: SIGNIN_PER_ADDRESS_PER_MINUTE + 3 }]);
        for (const location of spray) expect(location).toMatch(/code=refused$/);
        for (const location of limited) expect(location).toMatch(/code=rate-limited$/);
        // The account itself is not locked: from another address it signs in.
        expect((await signInFrom(bases[0]!, loopbackAddress(), user.email, password)).ok).toBe(true);
        expect((await refusalsSince(db, tally, before)).count).toBe(3);
        const perAttempt = await db.auditEvent.findMany({ where: { type: "user.sign_in_failed", seq: { gt: before.head } } });
        expect(perAttempt.filter((e) => e.data.includes(user.email))).toHaveLength(0);
        return;
      }
    }, 360_000);
  });
}
