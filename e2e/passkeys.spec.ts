// Passkeys in Chromium (docs/passkeys.md), with the DevTools protocol's
// virtual authenticator (CTAP2, internal, resident keys, user verification):
// a reviewer registers a passkey on /settings and approves a request whose
// policy requires passkeys; votes without an assertion, with one over another
// digest, or with a replayed nonce are refused through the same route the page
// uses; the executor's receipt carries the assertion, which verifies offline
// and fails after one changed byte.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type CDPSession, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { verifyReceipt, verifyReceiptAssertions, voteChallenge, type ReviewerPasskey } from "@countersign/client";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { E2E } from "./config";
import { adminCli, clientFor, tag } from "./helpers";
import { reviewer } from "./review-helpers";

test.describe.configure({ timeout: 240_000 });

async function virtualAuthenticator(page: Page, cdpSession?: CDPSession) {
  const cdp = cdpSession ?? (await page.context().newCDPSession(page));
  if (!cdpSession) await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, authenticatorId };
}

/** Axe (WCAG 2 A and AA) over the page's Passkeys section: the names of what violates. */
async function passkeySectionViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .include("section[aria-labelledby=passkeys-h]")
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
    .analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/** Rows of the e2e app's SQLite file, read-only beside the running app (WAL allows it). */
function readRows<T>(sql: string, ...params: unknown[]): T[] {
  const file = join(fileURLToPath(new URL("..", import.meta.url)), E2E.dataDir, "countersign.db");
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return database.prepare(sql).all(...params) as T[];
  } finally {
    database.close();
  }
}

type Posted = { status: number; body: Record<string, unknown> };

/** A POST from the page itself (its session cookie, its Origin), as the decision page's own script sends. */
async function postFromPage(page: Page, path: string, body: unknown): Promise<Posted> {
  return page.evaluate(
    async ({ path, body }) => {
      const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    },
    { path, body },
  );
}

/** navigator.credentials.get() in the page over `challenge` (base64url), answered as the WebAuthn JSON form. */
async function assertInPage(page: Page, challenge: string, credentialId: string) {
  return page.evaluate(
    async ({ challenge, credentialId }) => {
      const fromB64u = (s: string) =>
        Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
      const toB64u = (b: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(b)))
          .replace(/\+/g, "-")
          .replace(/\//g, "_")
          .replace(/=+$/, "");
      const cred = (await navigator.credentials.get({
        publicKey: {
          challenge: fromB64u(challenge),
          rpId: location.hostname,
          allowCredentials: [{ id: fromB64u(credentialId), type: "public-key" }],
          userVerification: "required",
        },
      })) as PublicKeyCredential;
      const r = cred.response as AuthenticatorAssertionResponse;
      return {
        id: cred.id,
        rawId: toB64u(cred.rawId),
        type: "public-key",
        response: {
          clientDataJSON: toB64u(r.clientDataJSON),
          authenticatorData: toB64u(r.authenticatorData),
          signature: toB64u(r.signature),
          ...(r.userHandle ? { userHandle: toB64u(r.userHandle) } : {}),
        },
        clientExtensionResults: {},
      };
    },
    { challenge, credentialId },
  );
}

test("a passkey registered on /settings approves a require_passkey request; unsigned, mis-signed and replayed votes are refused; the receipt verifies offline", async ({
  browser,
}) => {
  const t = tag();
  const role = `pk${t}`;
  const tool = `e2e.passkey.${t}`;
  adminCli([
    "policy",
    "set",
    "--anyway",
    "--name",
    `e2e-passkey-${t}`,
    "--tool",
    tool,
    "--roles",
    role,
    "--quorum",
    "1",
    "--ttl",
    "3600",
    "--require-passkey",
    "true",
  ]);
  const svc = adminCli(["service", "add", "--slug", `e2e-pk-${t}`]) as { slug: string; webhook_secret: string; api_token: string };
  const client = clientFor(svc);
  const ana = await reviewer(browser, [role], "pk-ana");
  const { page } = ana;
  await virtualAuthenticator(page);

  // Register on /settings.
  await page.goto("/settings", { waitUntil: "networkidle" });
  await page.getByLabel("Name for the new passkey").fill("Chromium virtual key");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByTestId("passkey-line")).toHaveText('Passkey "Chromium virtual key" added.');
  await expect(page.getByTestId("passkey")).toHaveCount(1);
  await expect(page.getByTestId("passkey").first()).toContainText("Chromium virtual key");

  const passkeysOf = async (email: string): Promise<ReviewerPasskey[]> => {
    const r = await fetch(`${E2E.appUrl}/api/v1/reviewers/${encodeURIComponent(email)}/passkeys`, {
      headers: { authorization: `Bearer ${svc.api_token}` },
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { passkeys: ReviewerPasskey[] }).passkeys;
  };
  const [registered] = await passkeysOf(ana.user.email);
  expect(registered).toMatchObject({ name: "Chromium virtual key", alg: expect.any(Number) });
  // Anonymous callers get nothing.
  expect((await fetch(`${E2E.appUrl}/api/v1/reviewers/${encodeURIComponent(ana.user.email)}/passkeys`)).status).toBe(401);

  const call = { run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { invoice: "7781", amount: 1200 } };
  const created = await client.requestApproval(call);
  const id = created.approval_id;
  await page.goto(`/approvals/${id}`, { waitUntil: "networkidle" });
  await expect(page.getByTestId("passkey-note")).toContainText("requires your passkey");
  const base = `/api/approvals/${id}`;

  // 1. No assertion.
  const unsigned = await postFromPage(page, `${base}/passkey-vote`, { decision: "approve", reason: "" });
  expect(unsigned).toMatchObject({ status: 403, body: { error: "passkey-required" } });

  // 2. An assertion over another args_digest, made by the real (virtual) authenticator with a real nonce.
  const begun = await postFromPage(page, `${base}/passkey-challenge`, { decision: "approve", reason: "" });
  expect(begun.status).toBe(200);
  const nonce = String(begun.body.nonce);
  const otherDigest = voteChallenge({
    approval_id: id,
    args_digest: `sha256:${"ab".repeat(32)}`,
    decision: "approve",
    reason: "",
    reviewer: ana.user.email,
    nonce,
  }).toString("base64url");
  const misSigned = await assertInPage(page, otherDigest, registered!.credential_id);
  const refused = await postFromPage(page, `${base}/passkey-vote`, { decision: "approve", reason: "", passkey: { nonce, response: misSigned } });
  expect(refused).toMatchObject({ status: 403, body: { error: "passkey-invalid" } });

  // 3. The page's own vote: Approve, the authenticator signs, the request is decided. The vote sent is kept, to replay.
  let sent: unknown = null;
  await page.route(`**${base}/passkey-vote`, async (route) => {
    sent = route.request().postDataJSON();
    await route.continue();
  });
  await page.getByLabel("Reason").fill("invoice checked");
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("decision-result")).toContainText(/approved/i);
  await page.unrouteAll({ behavior: "ignoreErrors" });
  expect(sent).toMatchObject({ decision: "approve", reason: "invoice checked", passkey: { nonce: expect.any(String) } });

  // 4. The same vote again: its nonce was used.
  const replayed = await postFromPage(page, `${base}/passkey-vote`, sent);
  expect(replayed).toMatchObject({ status: 403, body: { error: "passkey-invalid", message: expect.stringContaining("used already") } });

  // The executor consumes; the receipt carries the assertion and verifies offline.
  const consumed = await client.consume(id, {
    run_id: call.run_id,
    call_id: call.call_id,
    tool,
    arguments: call.arguments,
    args_salt: created.args_salt,
  });
  expect(consumed.decision).toBe("approved");
  const payload = await verifyReceipt(consumed.receipt, `${E2E.appUrl}/.well-known/jwks.json`);
  expect(payload.assertions).toHaveLength(1);
  expect(payload.assertions![0]).toMatchObject({ reviewer: ana.user.email, credential_id: registered!.credential_id, reason: "invoice checked" });
  const keys = { [ana.user.email]: await passkeysOf(ana.user.email) };
  expect(verifyReceiptAssertions(payload, keys)).toMatchObject({ ok: true });
  // One byte of the assertion changed: it no longer verifies.
  const bytes = Buffer.from(payload.assertions![0]!.authenticator_data, "base64url");
  bytes[bytes.length - 1]! ^= 0x01;
  const changed = { ...payload, assertions: [{ ...payload.assertions![0]!, authenticator_data: bytes.toString("base64url") }] };
  const bad = verifyReceiptAssertions(changed, keys);
  expect(bad.ok).toBe(false);
  expect(bad.failures.join()).toContain("signature does not verify");

  // The command line agrees: the receipt verifies against the database.
  const dir = mkdtempSync(join(tmpdir(), "cs-e2e-receipt-"));
  writeFileSync(join(dir, "receipt.jws"), consumed.receipt);
  expect(adminCli(["receipt", "verify", join(dir, "receipt.jws")])).toMatchObject({ ok: true, approval_id: id, failures: [] });

  // "Approve & next" signed with the passkey moves on like the form's own, in the queue's order (newest first here).
  const older = await client.requestApproval({ ...call, run_id: `run_${randomUUID()}` });
  const newer = await client.requestApproval({ ...call, run_id: `run_${randomUUID()}` });
  await page.goto(`/approvals/${newer.approval_id}?order=newest`, { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Approve & next" }).click();
  await expect(page).toHaveURL(`/approvals/${older.approval_id}?order=newest`);
  expect((await client.getApproval(newer.approval_id)).status).toBe("approved");
  await ana.context.close();
});

test("a second passkey is added only through an existing one: the page asks the first passkey to confirm, then makes the new one", async ({
  browser,
}) => {
  const ana = await reviewer(browser, ["reviewer"], "pk-two");
  const { page } = ana;
  const laptop = await virtualAuthenticator(page);
  const { cdp } = laptop;

  // The first passkey, just after signing in.
  await page.goto("/settings", { waitUntil: "networkidle" });
  await expect(page.getByTestId("passkey-rule")).toContainText("You can add your first passkey until");
  expect(await passkeySectionViolations(page)).toEqual([]);
  await page.getByLabel("Name for the new passkey").fill("Laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByTestId("passkey-line")).toHaveText('Passkey "Laptop" added.');
  await expect(page.getByTestId("passkey")).toHaveCount(1);
  await expect(page.getByTestId("passkey-rule")).toContainText("you first confirm with one of these passkeys");
  await expect(page.getByRole("status").filter({ hasText: "added" })).toHaveCount(1);
  expect(await passkeySectionViolations(page)).toEqual([]);
  const [laptopKey] = (await cdp.send("WebAuthn.getCredentials", { authenticatorId: laptop.authenticatorId })).credentials;
  expect(laptopKey).toBeDefined();

  // With no passkey of Ana's at hand (another authenticator, empty), nothing is added.
  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: laptop.authenticatorId });
  const stranger = await virtualAuthenticator(page, cdp);
  await page.getByLabel("Name for the new passkey").fill("Unconfirmed");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByTestId("passkey-line")).toContainText("your existing passkey did not confirm");
  await expect(page.getByTestId("passkey")).toHaveCount(1);
  expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId: stranger.authenticatorId })).credentials).toHaveLength(0);
  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: stranger.authenticatorId });

  // The laptop back, holding its passkey; a phone to make the new one on. The
  // laptop confirms; once the server has checked that (the confirm action),
  // the user turns to the phone: the laptop goes, so only the phone answers
  // navigator.credentials.create().
  const back = await virtualAuthenticator(page, cdp);
  await cdp.send("WebAuthn.addCredential", { authenticatorId: back.authenticatorId, credential: laptopKey! });
  let phoneId = "";
  const steps: string[] = [];
  await page.route("**/settings", async (route) => {
    const body = route.request().postData() ?? "";
    if (route.request().method() !== "POST") return route.continue();
    const step = body.includes("attestationObject") ? "register" : body.includes('"signature"') ? "confirm" : "options";
    steps.push(step);
    if (step === "confirm") {
      const response = await route.fetch();
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: back.authenticatorId });
      phoneId = (await virtualAuthenticator(page, cdp)).authenticatorId;
      return route.fulfill({ response });
    }
    return route.continue();
  });
  await page.getByLabel("Name for the new passkey").fill("Phone");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByTestId("passkey-line")).toHaveText('Passkey "Phone" added.');
  await page.unrouteAll({ behavior: "ignoreErrors" });
  expect(steps).toEqual(["options", "confirm", "register"]);
  await expect(page.getByTestId("passkey")).toHaveCount(2);
  await expect(page.getByTestId("passkey").nth(1)).toContainText("Phone");
  const [phoneKey] = (await cdp.send("WebAuthn.getCredentials", { authenticatorId: phoneId })).credentials;

  // The server's record: the phone's passkey, confirmed by the laptop's; a security notice for each addition.
  const b64url = (devtoolsId: string) => Buffer.from(devtoolsId, "base64").toString("base64url");
  const userId = readRows<{ id: string }>("SELECT id FROM users WHERE email = ?", ana.user.email)[0]!.id;
  const registered = readRows<{ data: string }>("SELECT data FROM audit_events WHERE type = 'passkey.registered' ORDER BY seq")
    .map((r) => JSON.parse(r.data) as Record<string, unknown>)
    .filter((d) => d.user === ana.user.email);
  expect(registered).toEqual([
    expect.objectContaining({ name: "Laptop", credential_id: b64url(laptopKey!.credentialId), confirmed_by: "sign-in" }),
    expect.objectContaining({
      name: "Phone",
      credential_id: b64url(phoneKey!.credentialId),
      confirmed_by: "passkey",
      confirming_credential_id: b64url(laptopKey!.credentialId),
    }),
  ]);
  // Only the passkey notices: as a reviewer she is also told of other tests' requests meanwhile.
  const notices = readRows<{ kind: string; subject: string }>(
    "SELECT kind, subject FROM notifications WHERE user_id = ? AND kind LIKE 'passkey%' ORDER BY created_at",
    userId,
  );
  expect(notices.map((n) => n.kind)).toEqual(["passkey_registered", "passkey_registered"]);
  await ana.context.close();
});
