// "Passkeys are added by passkeys" (docs/passkeys.md), on a real
// database with the built app sending mail to a real SMTP server: a user with
// a passkey adds another only with an assertion from one of their own, over
// an "add-passkey" challenge used once; a user with none adds the first only
// in the first 5 minutes of a session (the server's session record), checked
// when the creation options are issued and again when the passkey is stored.
// Every addition and removal is an audit event and an email, whatever the
// user's channels. The authenticator is test/helpers/soft-authenticator.ts;
// the server's checks are real.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, type Provider } from "../helpers/databases";
import { useNotifyingApps } from "../helpers/notifying-apps";
import { freePort } from "../helpers/ports";
import { refusal } from "../helpers/refusal-code";
import { signInWithPassword } from "../helpers/sign-in";
import { smtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp-sink";
import { softAuthenticator, type SoftAuthenticator } from "../helpers/soft-authenticator";

const MINUTE = 60_000;

export function addPasskeySuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`adding passkeys (${provider})`, () => {
    let sink: SmtpSink;
    beforeAll(async () => {
      sink = smtpSink(await freePort());
      await sink.start();
    });
    afterAll(async () => sink?.stop());
    const apps = useNotifyingApps(provider, {
      name: "add-passkey",
      env: () => ({ SMTP_URL: sink.url, SMTP_FROM: "Countersign <countersign@test.invalid>", AUTH_CREDENTIALS: "1" }),
      // The notices are queued here (lib/ runs in this process) and sent by the apps.
      processEnv: () => ({ SMTP_URL: sink.url }),
    });

    type Registrant = { id: string; sessionId: string };
    let lib: {
      passkeys: typeof import("@/lib/passkeys/manage-passkeys");
      rule: typeof import("@/lib/passkeys/addition-rule");
      relyingParty: typeof import("@/lib/passkeys/relying-party").relyingParty;
      createSession: typeof import("@/lib/auth/sessions").createSession;
      beginPasskeyVote: typeof import("@/lib/reviews/record-review").beginPasskeyVote;
      setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
      addUser: typeof import("@/lib/users/add-user").addUser;
      utcLabel: typeof import("@/lib/format/time").utcLabel;
    };
    beforeAll(async () => {
      lib = {
        passkeys: await import("@/lib/passkeys/manage-passkeys"),
        rule: await import("@/lib/passkeys/addition-rule"),
        relyingParty: (await import("@/lib/passkeys/relying-party")).relyingParty,
        createSession: (await import("@/lib/auth/sessions")).createSession,
        beginPasskeyVote: (await import("@/lib/reviews/record-review")).beginPasskeyVote,
        setPolicy: (await import("@/lib/policies/set-policy")).setPolicy,
        addUser: (await import("@/lib/users/add-user")).addUser,
        utcLabel: (await import("@/lib/format/time")).utcLabel,
      };
    });

    /** A user signed in just now: the session record a sign-in makes, and the user as the guards hand it to lib/. */
    async function signedInUser(roles: string[] = ["reviewer"]) {
      const user = await apps.f.makeUser(roles, `add-pk-${apps.f.uid()}@example.com`);
      const session = await lib.createSession(user.id);
      const created = (await apps.db.session.findUniqueOrThrow({ where: { id: session.id } })).createdAt;
      return { ...user, registrant: { id: user.id, sessionId: session.id } as Registrant, signedInAt: created };
    }

    /** The first passkey, right after signing in. */
    async function firstPasskey(who: Registrant, name: string): Promise<SoftAuthenticator> {
      const key = softAuthenticator(lib.relyingParty());
      const start = await lib.passkeys.beginPasskeyAddition(who);
      if (start.step !== "create") throw new Error(`expected creation options, got ${start.step}`);
      await lib.passkeys.registerPasskey(who, { response: key.register(start.options.challenge), name });
      return key;
    }

    /** The confirmation step: the "add-passkey" challenge the server issues, signed by `key` (or over `signOver`). */
    async function confirmation(who: Registrant, key: SoftAuthenticator, signOver?: string) {
      const start = await lib.passkeys.beginPasskeyAddition(who);
      if (start.step !== "confirm") throw new Error(`expected a confirmation step, got ${start.step}`);
      return { challenge: start.options.challenge, proof: key.assert(signOver ?? start.options.challenge) };
    }

    /** Creation options after a valid confirmation with `key`, and the new authenticator's answer to them. */
    async function createOptions(who: Registrant, key: SoftAuthenticator) {
      const { proof } = await confirmation(who, key);
      const options = await lib.passkeys.passkeyRegistrationOptions(who, { proof });
      const fresh = softAuthenticator(lib.relyingParty());
      return { fresh, response: fresh.register(options.challenge) };
    }

    const activeNames = async (userId: string) => (await lib.passkeys.listOwnPasskeys(userId)).map((p) => p.name);

    async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = await check();
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    const mailTo = (email: string, subject: string, text: string) => () =>
      sink.mails.find((m) => m.to.includes(email) && m.subject === subject && m.text.includes(text));

    it("refuses a second passkey without an assertion from an existing one, at both steps", async () => {
      const ana = await signedInUser();
      const anaKey = await firstPasskey(ana.registrant, "Ana's laptop");
      // A fresh session does not replace the confirmation once a passkey exists.
      const start = await lib.passkeys.beginPasskeyAddition(ana.registrant);
      expect(start.step).toBe("confirm");
      if (start.step !== "confirm") return;
      expect(start.options).toMatchObject({ rpId: new URL(apps.appUrl).hostname, userVerification: "required" });
      expect(start.options.allowCredentials.map((c) => c.id)).toEqual([anaKey.credentialId]);
      const noProof = await lib.passkeys.passkeyRegistrationOptions(ana.registrant, {}).catch((e: Error & { code: string }) => e);
      expect(noProof).toMatchObject({ code: "passkey-required", message: expect.stringContaining("confirm with one of your passkeys") });
      // Creation options obtained with a valid confirmation, then the answer sent without it.
      const { response } = await createOptions(ana.registrant, anaKey);
      expect(await refusal(lib.passkeys.registerPasskey(ana.registrant, { response, name: "Stolen cookie's key" }))).toBe("passkey-required");
      expect(await activeNames(ana.id)).toEqual(["Ana's laptop"]);
    });

    it("refuses an assertion from another user's passkey, from a removed passkey, over a used challenge or over a vote's challenge", async () => {
      const role = `addpk${randomBytes(3).toString("hex")}`;
      const ana = await signedInUser([role]);
      const bob = await signedInUser();
      const anaKey = await firstPasskey(ana.registrant, "Ana's laptop");
      const bobKey = await firstPasskey(bob.registrant, "Bob's phone");
      const tryProof = async (proof: unknown) => {
        const atOptions = await refusal(lib.passkeys.passkeyRegistrationOptions(ana.registrant, { proof }));
        // The last step checks the confirmation again, whatever the first one said.
        const { response } = await createOptions(ana.registrant, anaKey);
        const atStore = await refusal(lib.passkeys.registerPasskey(ana.registrant, { response, name: "Refused", proof }));
        return [atOptions, atStore];
      };

      // Ana's own challenge, signed with Bob's passkey.
      expect(await tryProof((await confirmation(ana.registrant, bobKey)).proof)).toEqual(["passkey-invalid", "passkey-invalid"]);

      // A passkey Ana removed: its assertion over a fresh challenge of hers.
      const { fresh: spare, response } = await createOptions(ana.registrant, anaKey);
      const second = await confirmation(ana.registrant, anaKey);
      const spareRow = await lib.passkeys.registerPasskey(ana.registrant, { response, name: "Spare key", proof: second.proof });
      await lib.passkeys.removePasskey(ana.id, spareRow.id);
      expect(await tryProof((await confirmation(ana.registrant, spare)).proof)).toEqual(["passkey-invalid", "passkey-invalid"]);

      // The assertion that confirmed the spare key, again: its challenge was used.
      const replayed = await lib.passkeys
        .passkeyRegistrationOptions(ana.registrant, { proof: second.proof })
        .catch((e: Error & { code: string }) => e);
      expect(replayed).toMatchObject({ code: "passkey-invalid", message: expect.stringContaining("used already") });
      expect(await tryProof(second.proof)).toEqual(["passkey-invalid", "passkey-invalid"]);

      // Made for a vote: the vote's challenge, and the vote's stored nonce, signed by Ana's passkey.
      const tool = `addpk${randomBytes(3).toString("hex")}.pay`;
      await lib.setPolicy({ name: `addpk-${apps.f.uid()}`, tool, roles: [role], quorum: 1, ttl: 3600, require_passkey: true }, "cli", {
        anyway: true,
      });
      const a = await apps.f.makeApproval(await apps.f.makeService(), { tool });
      const vote = await lib.beginPasskeyVote(ana.id, { approvalId: a.approval_id, decision: "approve" });
      expect(await tryProof(anaKey.assert(vote.options.challenge))).toEqual(["passkey-invalid", "passkey-invalid"]);
      expect(await tryProof(anaKey.assert(vote.nonce))).toEqual(["passkey-invalid", "passkey-invalid"]);
      // A registration challenge is not a confirmation either.
      const registration = await lib.passkeys.passkeyRegistrationOptions(ana.registrant, {
        proof: (await confirmation(ana.registrant, anaKey)).proof,
      });
      expect(await tryProof(anaKey.assert(registration.challenge))).toEqual(["passkey-invalid", "passkey-invalid"]);
      // An assertion without user verification.
      const noUv = await confirmation(ana.registrant, anaKey);
      const unverified = anaKey.assert(noUv.challenge, { flags: 0x01 });
      expect(await tryProof(unverified)).toEqual(["passkey-invalid", "passkey-invalid"]);

      // Nothing but the spare key was ever added; the vote's nonce is still usable for the vote.
      expect(await activeNames(ana.id)).toEqual(["Ana's laptop"]);
      expect(await apps.db.passkey.count({ where: { userId: ana.id } })).toBe(2);
      expect((await apps.db.webauthnChallenge.findUniqueOrThrow({ where: { nonce: vote.nonce } })).usedAt).toBeNull();
    });

    it("accepts a fresh valid assertion from the user's own passkey, once: the counter moves and the challenge is used", async () => {
      // Signed in long ago: a confirmation does not need a fresh session.
      const ana = await signedInUser();
      const anaKey = await firstPasskey(ana.registrant, "Ana's laptop");
      await apps.db.session.update({ where: { id: ana.registrant.sessionId }, data: { createdAt: new Date(Date.now() - 3 * 3600_000) } });
      const before = await apps.db.passkey.findUniqueOrThrow({ where: { credentialId: anaKey.credentialId } });
      const { challenge, proof } = await confirmation(ana.registrant, anaKey);
      expect((await apps.db.webauthnChallenge.findUniqueOrThrow({ where: { nonce: challenge } })).purpose).toBe("add-passkey");
      const options = await lib.passkeys.passkeyRegistrationOptions(ana.registrant, { proof });
      expect(options.excludeCredentials?.map((c) => c.id)).toEqual([anaKey.credentialId]);
      const phone = softAuthenticator(lib.relyingParty());
      const added = await lib.passkeys.registerPasskey(ana.registrant, { response: phone.register(options.challenge), name: "Ana's phone", proof });
      expect(added).toMatchObject({ name: "Ana's phone", credentialId: phone.credentialId });
      expect(await activeNames(ana.id)).toEqual(["Ana's laptop", "Ana's phone"]);
      const after = await apps.db.passkey.findUniqueOrThrow({ where: { credentialId: anaKey.credentialId } });
      expect(after.counter).toBeGreaterThan(before.counter);
      expect((await apps.db.webauthnChallenge.findUniqueOrThrow({ where: { nonce: challenge } })).usedAt).not.toBeNull();

      // Two additions racing with one confirmation: one is stored.
      const race = await confirmation(ana.registrant, anaKey);
      const answers = await Promise.all(
        [1, 2].map(async () => {
          const o = await lib.passkeys.passkeyRegistrationOptions(ana.registrant, { proof: race.proof });
          return softAuthenticator(lib.relyingParty()).register(o.challenge);
        }),
      );
      const raced = await Promise.all(
        answers.map((response, i) => refusal(lib.passkeys.registerPasskey(ana.registrant, { response, name: `Race ${i}`, proof: race.proof }))),
      );
      expect(raced.sort()).toEqual(["accepted", "passkey-invalid"]);
      expect(await apps.db.passkey.count({ where: { userId: ana.id, removedAt: null } })).toBe(3);
    });

    it("adds a first passkey only within 5 minutes of signing in, checked when the options are issued and when it is stored", async () => {
      const carl = await signedInUser();
      const at = (ms: number) => new Date(carl.signedInAt.getTime() + ms);
      const late = at(5 * MINUTE + 1000);
      // Too late: no options, at either entry, with a message that says what to do.
      const refused = await lib.passkeys.beginPasskeyAddition(carl.registrant, late).catch((e: Error & { code: string }) => e);
      expect(refused).toMatchObject({ code: "forbidden", message: lib.rule.SIGN_IN_AGAIN });
      expect(lib.rule.SIGN_IN_AGAIN).toContain("sign in again");
      expect(await refusal(lib.passkeys.passkeyRegistrationOptions(carl.registrant, {}, late))).toBe("forbidden");
      expect(await lib.passkeys.firstPasskeyWindow(carl.registrant, late)).toBeNull();
      // Options issued in time, the answer sent too late: refused when storing.
      const key = softAuthenticator(lib.relyingParty());
      const early = await lib.passkeys.passkeyRegistrationOptions(carl.registrant, {}, at(4 * MINUTE));
      expect(await refusal(lib.passkeys.registerPasskey(carl.registrant, { response: key.register(early.challenge), name: "Late key" }, late))).toBe(
        "forbidden",
      );
      expect(await activeNames(carl.id)).toEqual([]);
      // Within the window: accepted.
      expect(await lib.passkeys.firstPasskeyWindow(carl.registrant, at(4 * MINUTE))).toEqual(at(5 * MINUTE));
      const inTime = await lib.passkeys.beginPasskeyAddition(carl.registrant, at(4 * MINUTE));
      if (inTime.step !== "create") throw new Error("expected creation options");
      const added = await lib.passkeys.registerPasskey(
        carl.registrant,
        { response: key.register(inTime.options.challenge), name: "Carl's key" },
        at(5 * MINUTE - 1000),
      );
      expect(added.name).toBe("Carl's key");

      // The session record decides, not the user: another user's or a signed-out session gives nothing.
      const dora = await signedInUser();
      expect(await refusal(lib.passkeys.beginPasskeyAddition({ id: dora.id, sessionId: carl.registrant.sessionId }))).toBe("forbidden");
      await apps.db.session.update({ where: { id: dora.registrant.sessionId }, data: { revokedAt: new Date() } });
      expect(await refusal(lib.passkeys.beginPasskeyAddition(dora.registrant))).toBe("forbidden");
      // A session made 6 minutes ago, on the real clock.
      const eve = await signedInUser();
      await apps.db.session.update({ where: { id: eve.registrant.sessionId }, data: { createdAt: new Date(Date.now() - 6 * MINUTE) } });
      expect(await refusal(lib.passkeys.beginPasskeyAddition(eve.registrant))).toBe("forbidden");
      expect(await activeNames(dora.id)).toEqual([]);
      expect(await activeNames(eve.id)).toEqual([]);
    });

    it("says on /settings whether a first passkey can still be added, or to sign in again", async () => {
      const password = randomBytes(12).toString("base64url");
      const user = await lib.addUser({ email: `add-pk-page-${apps.f.uid()}@example.com`, password, roles: ["reviewer"] }, "cli");
      const cookie = await signInWithPassword(apps.appUrl, user.email, password);
      const page = async () => (await fetch(`${apps.appUrl}/settings`, { headers: { cookie } })).text();
      const fresh = await page();
      expect(fresh).toContain("You can add your first passkey until");
      expect(fresh).toContain("Add a passkey");
      await apps.db.session.updateMany({ where: { userId: user.id }, data: { createdAt: new Date(Date.now() - 6 * MINUTE) } });
      const stale = await page();
      expect(stale).toContain(lib.rule.SIGN_IN_AGAIN);
      expect(stale).toContain("Sign in again");
      expect(stale).not.toContain("Add a passkey");
    });

    it("audits every addition and removal, and emails the user a security notice for each, whatever their channels", async () => {
      const fay = await signedInUser();
      // Fay turned email off: a security notice goes out all the same.
      await apps.db.user.update({ where: { id: fay.id }, data: { notifyEmail: false } });
      const fayKey = await firstPasskey(fay.registrant, "Fay's laptop");
      const { proof } = await confirmation(fay.registrant, fayKey);
      const options = await lib.passkeys.passkeyRegistrationOptions(fay.registrant, { proof });
      const phone = softAuthenticator(lib.relyingParty());
      const phoneRow = await lib.passkeys.registerPasskey(fay.registrant, {
        response: phone.register(options.challenge),
        name: "Fay's <b>phone</b>",
        proof,
      });
      await lib.passkeys.removePasskey(fay.id, phoneRow.id);

      const events = (
        await apps.db.auditEvent.findMany({ where: { type: { in: ["passkey.registered", "passkey.removed"] } }, orderBy: { seq: "asc" } })
      )
        .map((e) => ({ type: e.type, actor: e.actor, data: JSON.parse(e.data) as Record<string, unknown> }))
        .filter((e) => e.data.user === fay.email);
      expect(events).toEqual([
        {
          type: "passkey.registered",
          actor: `user:${fay.email}`,
          data: {
            user: fay.email,
            credential_id: fayKey.credentialId,
            name: "Fay's laptop",
            alg: -7,
            confirmed_by: "sign-in",
            signed_in_at: fay.signedInAt.toISOString(),
            emailed: true,
          },
        },
        {
          type: "passkey.registered",
          actor: `user:${fay.email}`,
          data: {
            user: fay.email,
            credential_id: phone.credentialId,
            name: "Fay's <b>phone</b>",
            alg: -7,
            confirmed_by: "passkey",
            confirming_credential_id: fayKey.credentialId,
            emailed: true,
          },
        },
        {
          type: "passkey.removed",
          actor: `user:${fay.email}`,
          data: { user: fay.email, credential_id: phone.credentialId, name: "Fay's <b>phone</b>", remaining: 1, emailed: true },
        },
      ]);

      const addedSubject = "Countersign: a passkey was added to your account";
      const first = await until("the notice of the first passkey", mailTo(fay.email, addedSubject, `"Fay's laptop" was added`));
      const added = await until("the notice of the phone's registration", mailTo(fay.email, addedSubject, 'phone</b>" was added'));
      const removed = await until("the notice of the removal", mailTo(fay.email, "Countersign: a passkey was removed from your account", "phone"));
      const when = lib.utcLabel(phoneRow.createdAt);
      expect(added.to).toEqual([fay.email]);
      expect(added.text).toContain(`A passkey named "Fay's <b>phone</b>" was added to your Countersign account (${fay.email}) at ${when}.`);
      expect(added.text).toContain(`It was confirmed with your passkey "Fay's laptop".`);
      expect(added.text).toContain("If this was not you");
      expect(added.text).toContain(`${apps.appUrl}/settings`);
      // The name is text in the HTML part, never markup.
      expect(added.html).toContain("Fay&#39;s &#60;b&#62;phone&#60;/b&#62;");
      expect(added.html).not.toContain("<b>phone</b>");
      expect(removed.text).toContain(`The passkey named "Fay's <b>phone</b>" was removed from your Countersign account (${fay.email})`);
      expect(removed.text).toContain("If this was not you");
      expect(first.text).toContain("It is your first passkey, added within 5 minutes of signing in.");
      // Nothing secret: no credential id, public key or session id.
      const stored = await apps.db.passkey.findMany({ where: { userId: fay.id } });
      for (const m of [added, removed, first] as ReceivedMail[]) {
        const all = `${m.subject}\n${m.text}\n${m.html}`;
        for (const p of stored) {
          expect(all).not.toContain(p.credentialId);
          expect(all).not.toContain(p.publicKey);
        }
        expect(all).not.toContain(fay.registrant.sessionId);
      }
      // Sent through the outbox, once each, as the security notices they are.
      const outbox = await until("the outbox to record them sent", async () => {
        const rows = await apps.db.notification.findMany({ where: { userId: fay.id } });
        return rows.length === 3 && rows.every((n) => n.status === "sent") ? rows : undefined;
      });
      expect(outbox.map((n) => `${n.kind} ${n.channel}`).sort()).toEqual([
        "passkey_registered email",
        "passkey_registered email",
        "passkey_removed email",
      ]);
      expect(sink.mails.filter((m) => m.to.includes(fay.email))).toHaveLength(3);
    });
  });
}
