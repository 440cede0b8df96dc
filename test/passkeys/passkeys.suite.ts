// docs/passkeys.md on a real database and the running app (real HTTP): passkeys
// registered, renamed and removed; policies with require_passkey accept a vote
// only with a WebAuthn assertion over that vote, made with the reviewer's own
// passkey and a server nonce used once; channels that cannot carry one are
// refused; the receipt carries the assertions, which verify offline and fail
// after one changed byte; `audit verify` re-verifies stored assertions; the
// passkeys route admits admins and services only. The authenticator is a
// software one (test/helpers/soft-authenticator.ts); the server's checks are real.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";
import { signInWithPassword } from "../helpers/sign-in";
import { softAuthenticator, type SoftAuthenticator } from "../helpers/soft-authenticator";
import { adminInProcess } from "../helpers/admin-cli";

type Answer = { status: number; body: Record<string, unknown> };

export function passkeySuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`passkeys (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let f: typeof import("../helpers/fixtures");
    let lib: {
      recordReview: typeof import("@/lib/reviews/record-review").recordReview;
      beginPasskeyVote: typeof import("@/lib/reviews/record-review").beginPasskeyVote;
      passkeys: typeof import("@/lib/passkeys/manage-passkeys");
      relyingParty: typeof import("@/lib/passkeys/relying-party").relyingParty;
      useVoteNonce: typeof import("@/lib/passkeys/vote-passkey").useVoteNonce;
      inTransaction: typeof import("@/lib/db/transaction").inTransaction;
      setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
      verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
      verifyReceiptText: typeof import("@/lib/passkeys/verify-receipt").verifyReceiptText;
      client: typeof import("@countersign/client");
      signReceipt: typeof import("@/lib/receipts/sign-receipt").signReceipt;
      currentSigningKey: typeof import("@/lib/receipts/signing-keys").currentSigningKey;
      proposeStanding: typeof import("@/lib/standing/standing-approvals").proposeStanding;
    };
    let db: import("@/lib/db/client").Db;
    let svc: Awaited<ReturnType<typeof import("../helpers/fixtures").makeService>>;
    const password = randomBytes(12).toString("base64url");
    let ana: { id: string; email: string };
    let bob: { id: string; email: string };
    let anaKey: SoftAuthenticator;
    let bobKey: SoftAuthenticator;
    let adminCookie = "";
    let anaCookie = "";
    const tool = `pk${randomBytes(3).toString("hex")}.pay`;
    const soloTool = `pk${randomBytes(3).toString("hex")}.solo`;

    /** A session record made as a sign-in makes it, and the user as the guards hand it to lib/. */
    async function signedIn(user: { id: string }) {
      const { createSession } = await import("@/lib/auth/sessions");
      return { id: user.id, sessionId: (await createSession(user.id)).id };
    }

    /** Registers a first software passkey for the user through the real two steps, just after signing in. */
    async function register(userId: string, name: string): Promise<SoftAuthenticator> {
      const key = softAuthenticator(lib.relyingParty());
      const registrant = await signedIn({ id: userId });
      const options = await lib.passkeys.passkeyRegistrationOptions(registrant, {});
      await lib.passkeys.registerPasskey(registrant, { response: key.register(options.challenge), name });
      return key;
    }

    /** A nonce and challenge from the server, and the authenticator's answer over it (or over `signOver`). */
    async function signedVote(
      user: { id: string },
      key: SoftAuthenticator,
      vote: { approvalId: string; decision: "approve" | "deny"; reason?: string },
      signOver?: (challenge: string, nonce: string) => string,
    ) {
      const begun = await lib.beginPasskeyVote(user.id, vote);
      const challenge = signOver ? signOver(begun.options.challenge, begun.nonce) : begun.options.challenge;
      return { nonce: begun.nonce, response: key.assert(challenge) };
    }

    const api = async (path: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Answer> => {
      const r = await fetch(`${base}${path}`, { ...init, headers: { "content-type": "application/json", ...headers } });
      const text = await r.text();
      return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const consume = async (id: string) => {
      const a = await db.approval.findUniqueOrThrow({ where: { id } });
      return api(
        `/api/v1/approvals/${id}/consume`,
        { authorization: `Bearer ${svc.api_token}` },
        {
          method: "POST",
          body: JSON.stringify({ run_id: a.runId, call_id: a.callId, tool: a.tool, args_digest: a.argsDigest }),
        },
      );
    };

    // The admin command line's dispatcher, in this process, on the app's database (appFor set it).
    const adminCli = adminInProcess;

    beforeAll(async () => {
      f = await import("../helpers/fixtures");
      const rr = await import("@/lib/reviews/record-review");
      lib = {
        recordReview: rr.recordReview,
        beginPasskeyVote: rr.beginPasskeyVote,
        passkeys: await import("@/lib/passkeys/manage-passkeys"),
        relyingParty: (await import("@/lib/passkeys/relying-party")).relyingParty,
        useVoteNonce: (await import("@/lib/passkeys/vote-passkey")).useVoteNonce,
        inTransaction: (await import("@/lib/db/transaction")).inTransaction,
        setPolicy: (await import("@/lib/policies/set-policy")).setPolicy,
        verifyChain: (await import("@/lib/audit/verify-chain")).verifyChain,
        verifyReceiptText: (await import("@/lib/passkeys/verify-receipt")).verifyReceiptText,
        client: await import("@countersign/client"),
        signReceipt: (await import("@/lib/receipts/sign-receipt")).signReceipt,
        currentSigningKey: (await import("@/lib/receipts/signing-keys")).currentSigningKey,
        proposeStanding: (await import("@/lib/standing/standing-approvals")).proposeStanding,
      };
      db = (await import("@/lib/db/client")).db();
      const { addUser } = await import("@/lib/users/add-user");
      svc = await f.makeService();
      const role = `pk${randomBytes(3).toString("hex")}`;
      ana = await addUser({ email: `pk-ana-${f.uid()}@example.com`, password, roles: [role] }, "cli", { anyway: true });
      bob = await addUser({ email: `pk-bob-${f.uid()}@example.com`, password, roles: [role] }, "cli", { anyway: true });
      const admin = await addUser({ email: `pk-adm-${f.uid()}@example.com`, password, roles: ["admin"] }, "cli");
      await lib.setPolicy({ name: `pk-two-${f.uid()}`, tool, roles: [role], quorum: 2, ttl: 3600, require_passkey: true }, "cli", { anyway: true });
      await lib.setPolicy({ name: `pk-one-${f.uid()}`, tool: soloTool, roles: [role], quorum: 1, ttl: 3600, require_passkey: true }, "cli", {
        anyway: true,
      });
      anaKey = await register(ana.id, "Ana's laptop");
      bobKey = await register(bob.id, "Bob's phone");
      adminCookie = await signInWithPassword(base, admin.email, password);
      anaCookie = await signInWithPassword(base, ana.email, password);
    });
    afterAll(async () => db?.$disconnect());

    it("registers a passkey with a single-use challenge; renames and removes it, each audited", async () => {
      const key = softAuthenticator(lib.relyingParty());
      // Ana has a passkey: the new one is confirmed with it (docs/passkeys.md).
      const anaSession = await signedIn(ana);
      const start = await lib.passkeys.beginPasskeyAddition(anaSession);
      if (start.step !== "confirm") throw new Error("expected a confirmation step");
      const proof = anaKey.assert(start.options.challenge);
      const options = await lib.passkeys.passkeyRegistrationOptions(anaSession, { proof });
      expect(options.rp.id).toBe(new URL(base).hostname);
      expect(options.authenticatorSelection?.userVerification).toBe("required");
      const answer = key.register(options.challenge);
      const added = await lib.passkeys.registerPasskey(anaSession, { response: answer, name: "  Spare key  ", proof });
      expect(added).toMatchObject({ name: "Spare key", alg: -7, credentialId: key.credentialId });
      // The same answer again: its challenge was used.
      expect(await refusal(lib.passkeys.registerPasskey(anaSession, { response: answer, name: "again", proof }))).toBe("invalid-request");
      // Someone else's challenge is not yours.
      const bobSession = await signedIn(bob);
      const bobStart = await lib.passkeys.beginPasskeyAddition(bobSession);
      if (bobStart.step !== "confirm") throw new Error("expected a confirmation step");
      const bobOptions = await lib.passkeys.passkeyRegistrationOptions(bobSession, { proof: bobKey.assert(bobStart.options.challenge) });
      const stolen = softAuthenticator(lib.relyingParty());
      expect(await refusal(lib.passkeys.registerPasskey(anaSession, { response: stolen.register(bobOptions.challenge), name: "x", proof }))).toBe(
        "invalid-request",
      );
      // Bad input is a clear refusal, not a crash.
      expect(await refusal(lib.passkeys.registerPasskey(anaSession, { response: { id: 1 }, name: "x" }))).toBe("invalid-request");
      expect(await refusal(lib.passkeys.registerPasskey(anaSession, { response: answer, name: "a\u0000b" }))).toBe("invalid-request");

      await lib.passkeys.renamePasskey(ana.id, { id: added.id, name: "Backup key" });
      expect(await refusal(lib.passkeys.renamePasskey(bob.id, { id: added.id, name: "mine now" }))).toBe("not-found");
      expect((await lib.passkeys.listOwnPasskeys(ana.id)).map((p) => p.name)).toEqual(["Ana's laptop", "Backup key"]);
      expect(await refusal(lib.passkeys.removePasskey(bob.id, added.id))).toBe("not-found");
      await lib.passkeys.removePasskey(ana.id, added.id);
      expect((await lib.passkeys.listOwnPasskeys(ana.id)).map((p) => p.name)).toEqual(["Ana's laptop"]);

      const events = await db.auditEvent.findMany({ where: { type: { in: ["passkey.registered", "passkey.removed"] } }, orderBy: { seq: "asc" } });
      const mine = events
        .map((e) => ({ type: e.type, data: JSON.parse(e.data) as Record<string, unknown> }))
        .filter((e) => e.data.credential_id === key.credentialId);
      expect(mine).toEqual([
        {
          type: "passkey.registered",
          data: {
            user: ana.email,
            credential_id: key.credentialId,
            name: "Spare key",
            alg: -7,
            confirmed_by: "passkey",
            confirming_credential_id: anaKey.credentialId,
            // This deployment sends no email (test/passkeys/add-passkey.suite.ts has a mail server).
            emailed: false,
          },
        },
        { type: "passkey.removed", data: { user: ana.email, credential_id: key.credentialId, name: "Backup key", remaining: 1, emailed: false } },
      ]);
      // A removed passkey signs no vote.
      const a = await f.makeApproval(svc, { tool: soloTool });
      const vote = { approvalId: a.approval_id, decision: "approve" as const };
      const signed = await signedVote(ana, key, vote);
      expect(await refusal(lib.recordReview(ana.id, { ...vote, passkey: signed }))).toBe("passkey-invalid");
    });

    it("refuses a vote without an assertion, and every channel that cannot carry one", async () => {
      const a = await f.makeApproval(svc, { tool });
      expect((await db.approval.findUniqueOrThrow({ where: { id: a.approval_id } })).requirePasskey).toBe(true);
      const vote = { approvalId: a.approval_id, decision: "approve" as const };
      const refused = await lib.recordReview(ana.id, vote).catch((e: Error & { code: string }) => e);
      expect(refused).toMatchObject({ code: "passkey-required", message: expect.stringContaining("requires a passkey") });
      // Slack buttons cannot carry an assertion.
      const slack = await lib.recordReview(ana.id, vote, "slack").catch((e: Error & { code: string }) => e);
      expect(slack).toMatchObject({ code: "passkey-required", message: expect.stringContaining("Slack") });
      // Approve all on a run's page neither.
      const { reviewRun } = await import("@/lib/runs/run-review");
      const run = await db.approval.findUniqueOrThrow({ where: { id: a.approval_id } });
      const batch = await reviewRun(ana.id, { service: svc.slug, runId: run.runId, decision: "approve", approvalIds: [a.approval_id] }).catch(
        (e: Error & { code: string }) => e,
      );
      expect(batch).toMatchObject({ code: "passkey-required" });
      // Standing approvals cannot be proposed under such a policy (even if its row allowed them).
      const p = await db.policy.findFirstOrThrow({ where: { toolPattern: tool } });
      await db.policy.update({ where: { id: p.id }, data: { standingMaxTtlSeconds: 3600 } });
      const standing = await lib
        .proposeStanding(ana.id, {
          approvalId: a.approval_id,
          pins: [{ path: "/amount", op: "eq" }],
          expiresInSeconds: 600,
          maxUses: null,
          reason: "x",
        })
        .catch((e: Error & { code: string }) => e);
      await db.policy.update({ where: { id: p.id }, data: { standingMaxTtlSeconds: 0 } });
      expect(standing).toMatchObject({ code: "forbidden", message: expect.stringContaining("passkey") });
      expect(await db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);
    });

    it("never approves nor applies a standing approval made before its policy came to require passkeys", async () => {
      const standing = await import("@/lib/standing/standing-approvals");
      const role = `pkst${randomBytes(3).toString("hex")}`;
      const stTool = `pkst${randomBytes(3).toString("hex")}.pay`;
      const { addUser } = await import("@/lib/users/add-user");
      const [p1, p2] = [
        await addUser({ email: `pk-st1-${f.uid()}@example.com`, roles: [role] }, "cli", { anyway: true }),
        await addUser({ email: `pk-st2-${f.uid()}@example.com`, roles: [role] }, "cli", { anyway: true }),
      ];
      const twoName = `pk-st2-${f.uid()}`;
      const oneName = `pk-st1-${f.uid()}`;
      await lib.setPolicy({ name: twoName, tool: stTool, service: svc.slug, roles: [role], quorum: 2, ttl: 3600, standing_max_ttl: 3600 }, "cli", {
        anyway: true,
      });
      const first = await f.makeApproval(svc, { tool: stTool });
      const pins = [{ path: "/amount", op: "eq" as const }];
      const proposed = await standing.proposeStanding(p1.id, {
        approvalId: first.approval_id,
        pins,
        expiresInSeconds: 1800,
        maxUses: null,
        reason: "routine",
      });
      expect(proposed.status).toBe("proposed");
      // An active one under a quorum-1 policy for another tool of the same service.
      const oneTool = `${stTool}.solo`;
      await lib.setPolicy({ name: oneName, tool: oneTool, service: svc.slug, roles: [role], quorum: 1, ttl: 3600, standing_max_ttl: 3600 }, "cli", {
        anyway: true,
      });
      const firstSolo = await f.makeApproval(svc, { tool: oneTool });
      const active = await standing.proposeStanding(p1.id, {
        approvalId: firstSolo.approval_id,
        pins,
        expiresInSeconds: 1800,
        maxUses: null,
        reason: "routine",
      });
      expect(active.status).toBe("active");
      expect((await f.makeApproval(svc, { tool: oneTool })).status).toBe("approved");

      // Both policies come to require passkeys (their rows as an older definition left them, standing_max_ttl included).
      await db.policy.updateMany({ where: { name: { in: [twoName, oneName] } }, data: { requirePasskey: true } });
      const refused = await standing.approveStanding(p2.id, proposed.id).catch((e: Error & { code: string }) => e);
      expect(refused).toMatchObject({ code: "forbidden", message: expect.stringContaining("requires a passkey") });
      const next = await f.makeApproval(svc, { tool: oneTool });
      expect(next.status).toBe("pending");
      expect((await db.approval.findUniqueOrThrow({ where: { id: next.approval_id } })).standingApprovalId).toBeNull();
    });

    it("refuses an assertion over another digest, another reviewer's credential, and a replayed or foreign nonce", async () => {
      const a = await f.makeApproval(svc, { tool });
      const vote = { approvalId: a.approval_id, decision: "approve" as const, reason: "checked the invoice" };
      const { voteChallenge } = lib.client;
      // Signed over the same vote with another args_digest.
      const otherDigest = await signedVote(ana, anaKey, vote, (_c, nonce) =>
        voteChallenge({
          approval_id: a.approval_id,
          args_digest: `sha256:${"0".repeat(64)}`,
          decision: "approve",
          reason: vote.reason,
          reviewer: ana.email,
          nonce,
        }).toString("base64url"),
      );
      expect(await refusal(lib.recordReview(ana.id, { ...vote, passkey: otherDigest }))).toBe("passkey-invalid");
      // Signed for "approve" but sent as a denial, or with another reason.
      const approveSigned = await signedVote(ana, anaKey, vote);
      expect(await refusal(lib.recordReview(ana.id, { ...vote, decision: "deny", passkey: approveSigned }))).toBe("passkey-invalid");
      expect(await refusal(lib.recordReview(ana.id, { ...vote, reason: "something else", passkey: approveSigned }))).toBe("passkey-invalid");
      // Bob's nonce and challenge, signed with Ana's passkey.
      const withAnasKey = await signedVote(bob, anaKey, vote);
      expect(await refusal(lib.recordReview(bob.id, { ...vote, passkey: withAnasKey }))).toBe("passkey-invalid");
      // User verification is required.
      const begun = await lib.beginPasskeyVote(ana.id, vote);
      const noUv = { nonce: begun.nonce, response: anaKey.assert(begun.options.challenge, { flags: 0x01 }) };
      expect(await refusal(lib.recordReview(ana.id, { ...vote, passkey: noUv }))).toBe("passkey-invalid");
      expect(await db.review.count({ where: { approvalId: a.approval_id } })).toBe(0);

      // A refused vote left its nonce unused: the good vote with it is accepted.
      expect((await lib.recordReview(ana.id, { ...vote, passkey: approveSigned })).status).toBe("pending");
      // The same vote again: the nonce was used (checked before anything else).
      const replay = await lib.recordReview(ana.id, { ...vote, passkey: approveSigned }).catch((e: Error & { code: string }) => e);
      expect(replay).toMatchObject({ code: "passkey-invalid", message: expect.stringContaining("used already") });
      // Ana's nonce for this request, tried by Bob or on another request.
      const fresh = await signedVote(ana, anaKey, { ...vote, approvalId: (await f.makeApproval(svc, { tool })).approval_id });
      expect(await refusal(lib.recordReview(bob.id, { ...vote, passkey: fresh }))).toBe("passkey-invalid");
      expect(await db.review.count({ where: { approvalId: a.approval_id } })).toBe(1);
      // A vote's assertion is stored, and its audit event says passkey: true.
      expect(await db.voteAssertion.count({ where: { approvalId: a.approval_id } })).toBe(1);
      const ev = await db.auditEvent.findFirstOrThrow({ where: { approvalId: a.approval_id, type: "review.recorded" } });
      expect(JSON.parse(ev.data)).toMatchObject({ passkey: true, credential_id: anaKey.credentialId, reviewer: ana.email });
    });

    it("uses a nonce once under concurrency: one vote of many identical ones is recorded", async () => {
      const a = await f.makeApproval(svc, { tool });
      const vote = { approvalId: a.approval_id, decision: "approve" as const };
      const signed = await signedVote(ana, anaKey, vote);
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => lib.recordReview(ana.id, { ...vote, passkey: signed })));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      expect(await db.review.count({ where: { approvalId: a.approval_id } })).toBe(1);
      // The nonce's use on its own, in separate transactions at once.
      const b = await f.makeApproval(svc, { tool });
      const begun = await lib.beginPasskeyVote(bob.id, { approvalId: b.approval_id, decision: "approve" });
      const now = new Date();
      const uses = await Promise.allSettled(
        Array.from({ length: 8 }, () =>
          lib.inTransaction((tx) => lib.useVoteNonce(tx, { nonce: begun.nonce, userId: bob.id, approvalId: b.approval_id, now })),
        ),
      );
      expect(uses.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    });

    it("forgets nonces a day after they expired; a forgotten nonce is refused", async () => {
      const { pruneWebauthnChallenges } = await import("@/lib/passkeys/vote-passkey");
      const a = await f.makeApproval(svc, { tool });
      const vote = { approvalId: a.approval_id, decision: "approve" as const };
      const signed = await signedVote(ana, anaKey, vote);
      await db.webauthnChallenge.update({ where: { nonce: signed.nonce }, data: { expiresAt: new Date(Date.now() - 2 * 86_400_000) } });
      expect(await pruneWebauthnChallenges()).toBeGreaterThanOrEqual(1);
      expect(await db.webauthnChallenge.count({ where: { nonce: signed.nonce } })).toBe(0);
      expect(await refusal(lib.recordReview(ana.id, { ...vote, passkey: signed }))).toBe("passkey-invalid");
    });

    it("votes through the console route (same origin only), and the receipt's assertions verify offline, in order, and fail after one changed byte", async () => {
      const a = await f.makeApproval(svc, { tool });
      // Ana through the route, as the decision page does.
      const anaVote = { approvalId: a.approval_id, decision: "approve" as const, reason: "amount matches" };
      const signed = await signedVote(ana, anaKey, anaVote);
      const body = JSON.stringify({ decision: "approve", reason: anaVote.reason, passkey: signed });
      const path = `/api/approvals/${a.approval_id}/passkey-vote`;
      expect((await api(path, { cookie: anaCookie, origin: "https://evil.example" }, { method: "POST", body })).status).toBe(403);
      expect((await api(path, { origin: new URL(base).origin }, { method: "POST", body })).status).toBe(401);
      const unsigned = await api(
        path,
        { cookie: anaCookie, origin: new URL(base).origin },
        { method: "POST", body: JSON.stringify({ decision: "approve" }) },
      );
      expect(unsigned).toMatchObject({ status: 403, body: { error: "passkey-required", message: expect.stringContaining("requires a passkey") } });
      const routeVote = await api(path, { cookie: anaCookie, origin: new URL(base).origin }, { method: "POST", body });
      expect(routeVote).toMatchObject({ status: 200, body: { status: "pending" } });
      const bobVote = { approvalId: a.approval_id, decision: "approve" as const };
      expect((await lib.recordReview(bob.id, { ...bobVote, passkey: await signedVote(bob, bobKey, bobVote) })).status).toBe("approved");

      const consumed = await consume(a.approval_id);
      expect(consumed.status).toBe(200);
      const receipt = String(consumed.body.receipt);
      const { payload } = lib.client.decodeReceiptUnverified(receipt) as {
        payload: Record<string, unknown> & { assertions: Array<Record<string, string>> };
      };
      expect(payload.decided_by).toEqual([ana.email, bob.email]);
      expect(payload.assertions.map((x) => [x.reviewer, x.credential_id, x.reason])).toEqual([
        [ana.email, anaKey.credentialId, "amount matches"],
        [bob.email, bobKey.credentialId, ""],
      ]);
      expect(Object.keys(payload.assertions[0]!).sort()).toEqual(
        ["authenticator_data", "client_data_json", "credential_id", "nonce", "reason", "reviewer", "signature"].sort(),
      );

      // Offline, as an executor: the JWKS, the reviewers' passkeys from the API (service token), the client's verifier.
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: object[] };
      const verified = await lib.client.verifyReceipt(receipt, jwks as never);
      const keys: Record<string, import("@countersign/client").ReviewerPasskey[]> = {};
      for (const email of [ana.email, bob.email]) {
        const listed = await api(`/api/v1/reviewers/${encodeURIComponent(email)}/passkeys`, { authorization: `Bearer ${svc.api_token}` });
        expect(listed.status).toBe(200);
        keys[email] = listed.body.passkeys as import("@countersign/client").ReviewerPasskey[];
      }
      expect(lib.client.verifyReceiptAssertions(verified, keys)).toMatchObject({ ok: true, failures: [] });
      expect((await lib.verifyReceiptText(receipt)).ok).toBe(true);

      // One byte of Ana's signature changed.
      const flip = (b64: string) => {
        const bytes = Buffer.from(b64, "base64url");
        bytes[bytes.length - 5]! ^= 0x01;
        return bytes.toString("base64url");
      };
      const changed = structuredClone(payload);
      changed.assertions[0]!.signature = flip(changed.assertions[0]!.signature!);
      const offline = lib.client.verifyReceiptAssertions(changed as never, keys);
      expect(offline.ok).toBe(false);
      expect(offline.failures[0]).toContain(ana.email);
      // Re-signed with the server's own key (so only the assertion is wrong), and as tampered in transit (the JWS breaks).
      const resigned = await lib.signReceipt(changed as never, await lib.currentSigningKey());
      const r1 = await lib.verifyReceiptText(resigned);
      expect(r1).toMatchObject({ ok: false });
      expect(r1.failures.join()).toContain("signature does not verify");
      const [h, , s] = receipt.split(".");
      const tampered = `${h}.${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${s}`;
      expect((await lib.verifyReceiptText(tampered)).ok).toBe(false);
      // The reviewer list must be decided_by, in order.
      const swapped = { ...payload, assertions: [...payload.assertions].reverse() };
      expect(lib.client.verifyReceiptAssertions(swapped as never, keys).ok).toBe(false);

      // The command line: exit 0 on the real receipt (expired or not), 1 on the changed one.
      const dir = mkdtempSync(join(tmpdir(), "cs-receipt-"));
      writeFileSync(join(dir, "good.jws"), receipt + "\n");
      writeFileSync(join(dir, "bad.jws"), resigned);
      writeFileSync(join(dir, "junk.jws"), "not a receipt");
      const good = await adminCli(["receipt", "verify", join(dir, "good.jws")]);
      expect(good.code, good.stderr).toBe(0);
      expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, approval_id: a.approval_id, failures: [] });
      const bad = await adminCli(["receipt", "verify", join(dir, "bad.jws")]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("receipt does not verify");
      const junk = await adminCli(["receipt", "verify", join(dir, "junk.jws")]);
      expect(junk.code).toBe(1);
      expect(junk.stderr).toContain("compact JWS");
    }, 180_000);

    it("re-verifies stored assertions in audit verify, and reports a changed one", async () => {
      const before = await lib.verifyChain();
      expect(before).toMatchObject({ ok: true });
      expect(before.assertions!.checked).toBeGreaterThanOrEqual(3);
      const stored = await db.voteAssertion.findFirstOrThrow({ where: { credentialId: bobKey.credentialId } });
      const bytes = Buffer.from(stored.authenticatorData, "base64url");
      bytes[33]! ^= 0x01; // one byte of the signature counter
      await db.voteAssertion.update({ where: { reviewId: stored.reviewId }, data: { authenticatorData: bytes.toString("base64url") } });
      try {
        const after = await lib.verifyChain();
        expect(after).toMatchObject({ ok: false, reason: "vote-assertion-invalid" });
        expect(after.assertions!.failures).toEqual([
          { approval_id: stored.approvalId, reviewer: bob.email, credential_id: bobKey.credentialId, reason: "the signature does not verify" },
        ]);
      } finally {
        await db.voteAssertion.update({ where: { reviewId: stored.reviewId }, data: { authenticatorData: stored.authenticatorData } });
      }
      expect(await lib.verifyChain()).toMatchObject({ ok: true });
    });

    it("lists a reviewer's passkeys to admins and services only", async () => {
      const path = `/api/v1/reviewers/${encodeURIComponent(ana.email)}/passkeys`;
      const asAdmin = await api(path, { cookie: adminCookie });
      expect(asAdmin.status).toBe(200);
      expect(asAdmin.body.reviewer).toBe(ana.email);
      const list = asAdmin.body.passkeys as Array<Record<string, unknown>>;
      expect(list[0]).toEqual({
        credential_id: anaKey.credentialId,
        public_key: anaKey.publicKeyCose,
        // The authenticator's own key, read back from its COSE form by the server.
        jwk: anaKey.publicJwk,
        alg: -7,
        name: "Ana's laptop",
        created_at: expect.stringMatching(/Z$/),
        removed_at: null,
      });
      // The removed one is listed too (its votes must keep verifying), marked.
      expect(list.some((p) => p.removed_at !== null)).toBe(true);
      expect((await api(path, { authorization: `Bearer ${svc.api_token}` })).status).toBe(200);
      expect(await api(path, {})).toMatchObject({ status: 401, body: { error: "unauthorized" } });
      expect(await api(path, { authorization: "Bearer cs_live_wrong" })).toMatchObject({ status: 401, body: { error: "unauthorized" } });
      expect(await api(path, { cookie: anaCookie })).toMatchObject({ status: 403, body: { error: "forbidden" } });
      expect(await api(`/api/v1/reviewers/nobody-${f.uid()}%40example.com/passkeys`, { cookie: adminCookie })).toMatchObject({
        status: 404,
        body: { error: "not-found" },
      });
      expect(await api(`/api/v1/reviewers/not-an-email/passkeys`, { cookie: adminCookie })).toMatchObject({
        status: 422,
        body: { error: "invalid-request" },
      });
    });

    it("sets require_passkey from the command line; it is snapshotted by new requests; it cannot allow standing approvals", async () => {
      const name = `pk-cli-${f.uid()}`;
      const cliTool = `pkcli${randomBytes(3).toString("hex")}.run`;
      const set = await adminCli([
        "policy",
        "set",
        "--anyway",
        "--name",
        name,
        "--tool",
        cliTool,
        "--roles",
        "reviewer",
        "--quorum",
        "1",
        "--ttl",
        "600",
        "--require-passkey",
        "true",
      ]);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout)).toMatchObject({ policy: { name, require_passkey: true, standing_max_ttl: 0 } });
      expect((await db.policy.findUniqueOrThrow({ where: { name } })).requirePasskey).toBe(true);
      const a = await f.makeApproval(svc, { tool: cliTool });
      expect((await db.approval.findUniqueOrThrow({ where: { id: a.approval_id } })).requirePasskey).toBe(true);
      const both = await adminCli([
        "policy",
        "set",
        "--anyway",
        "--name",
        name,
        "--tool",
        cliTool,
        "--roles",
        "reviewer",
        "--quorum",
        "1",
        "--ttl",
        "600",
        "--require-passkey",
        "true",
        "--standing-max-ttl",
        "60",
      ]);
      expect(both.code).not.toBe(0);
      expect(both.stderr).toContain("require_passkey");
      const off = await adminCli([
        "policy",
        "set",
        "--anyway",
        "--name",
        name,
        "--tool",
        cliTool,
        "--roles",
        "reviewer",
        "--quorum",
        "1",
        "--ttl",
        "600",
      ]);
      expect(JSON.parse(off.stdout)).toMatchObject({ policy: { require_passkey: false } });
      const word = await adminCli([
        "policy",
        "set",
        "--anyway",
        "--name",
        name,
        "--tool",
        cliTool,
        "--roles",
        "reviewer",
        "--quorum",
        "1",
        "--ttl",
        "600",
        "--require-passkey",
        "maybe",
      ]);
      expect(word.code).not.toBe(0);
      expect(word.stderr).toContain("true or false");
    }, 180_000);
  });
}
