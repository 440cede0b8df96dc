// The client's offline passkey checks (docs/passkeys.md), with keys of each
// supported kind made here: the vote challenge is SHA-256 of the RFC 8785 text,
// COSE keys (ES256, EdDSA, RS256) are read, one assertion verifies only over
// its own challenge with user verification, and a receipt's assertions verify
// in decided_by's order and fail after one changed byte or a missing key.
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, coseKeyToJwk, verifyAssertion, verifyReceiptAssertions, voteChallenge, type ReceiptAssertion } from "../src/index.js";

const b64u = (b: Uint8Array) => Buffer.from(b).toString("base64url");

// CBOR just big enough for COSE keys: a map of small ints to small ints or byte strings.
function coseMap(entries: Array<[number, number | Buffer]>): Buffer {
  const head = (major: number, n: number) =>
    n < 24 ? Buffer.from([(major << 5) | n]) : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const item = (v: number | Buffer) => (typeof v === "number" ? (v >= 0 ? head(0, v) : head(1, -1 - v)) : Buffer.concat([head(2, v.length), v]));
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [item(k), item(v)])]);
}

type Kind = "ES256" | "EdDSA" | "RS256";

function authenticator(kind: Kind, rpId = "countersign.example") {
  let privateKey: KeyObject;
  let cose: Buffer;
  if (kind === "ES256") {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = pair.publicKey.export({ format: "jwk" });
    privateKey = pair.privateKey;
    cose = coseMap([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
  } else if (kind === "EdDSA") {
    const pair = generateKeyPairSync("ed25519");
    privateKey = pair.privateKey;
    cose = coseMap([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, Buffer.from(pair.publicKey.export({ format: "jwk" }).x!, "base64url")],
    ]);
  } else {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const jwk = pair.publicKey.export({ format: "jwk" });
    privateKey = pair.privateKey;
    cose = coseMap([
      [1, 3],
      [3, -257],
      [-1, Buffer.from(jwk.n!, "base64url")],
      [-2, Buffer.from(jwk.e!, "base64url")],
    ]);
  }
  const credentialId = b64u(createHash("sha256").update(cose).digest().subarray(0, 16));
  return {
    credentialId,
    publicKey: b64u(cose),
    assert(challenge: Uint8Array, flags = 0x05) {
      const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: b64u(challenge), origin: `https://${rpId}` }));
      const authData = Buffer.concat([createHash("sha256").update(rpId).digest(), Buffer.from([flags, 0, 0, 0, 1])]);
      const signed = Buffer.concat([authData, createHash("sha256").update(clientData).digest()]);
      const signature = sign(kind === "EdDSA" ? null : "sha256", signed, privateKey);
      return { authenticator_data: b64u(authData), client_data_json: b64u(clientData), signature: b64u(signature) };
    },
  };
}

const fields = {
  approval_id: "apr_1",
  args_digest: `sha256:${"1".repeat(64)}`,
  decision: "approve" as const,
  reason: "ok",
  reviewer: "ana@example.com",
  nonce: "n1",
};

describe("voteChallenge", () => {
  it("is SHA-256 of the RFC 8785 text of the six fields", () => {
    const expected = createHash("sha256").update(canonicalJson(fields), "utf8").digest();
    expect(voteChallenge(fields).equals(expected)).toBe(true);
    expect(canonicalJson(fields)).toBe(
      `{"approval_id":"apr_1","args_digest":"sha256:${"1".repeat(64)}","decision":"approve","nonce":"n1","reason":"ok","reviewer":"ana@example.com"}`,
    );
  });
});

describe("verifyAssertion", () => {
  for (const kind of ["ES256", "EdDSA", "RS256"] as const) {
    it(`verifies a ${kind} assertion over its own challenge only`, () => {
      const a = authenticator(kind);
      expect(coseKeyToJwk(a.publicKey).alg).toBe({ ES256: -7, EdDSA: -8, RS256: -257 }[kind]);
      const challenge = voteChallenge(fields);
      const assertion = a.assert(challenge);
      expect(verifyAssertion(assertion, a.publicKey, { challenge, origin: "https://countersign.example", rpId: "countersign.example" })).toEqual({
        ok: true,
      });
      expect(verifyAssertion(assertion, a.publicKey, { challenge: voteChallenge({ ...fields, decision: "deny" }) })).toMatchObject({ ok: false });
      expect(verifyAssertion(assertion, a.publicKey, { challenge, rpId: "evil.example" })).toMatchObject({ ok: false });
      expect(verifyAssertion(a.assert(challenge, 0x01), a.publicKey, { challenge })).toEqual({
        ok: false,
        reason: "user verification is not flagged",
      });
      const other = authenticator(kind);
      expect(verifyAssertion(assertion, other.publicKey, { challenge })).toEqual({ ok: false, reason: "the signature does not verify" });
    });
  }

  it("answers malformed input with a reason, never an exception", () => {
    const a = authenticator("ES256");
    const challenge = voteChallenge(fields);
    expect(verifyAssertion({ authenticator_data: "", client_data_json: "", signature: "" }, a.publicKey, { challenge }).ok).toBe(false);
    expect(verifyAssertion(a.assert(challenge), "AAAA", { challenge })).toMatchObject({ ok: false, reason: expect.stringContaining("public key") });
    expect(() => coseKeyToJwk("oWFhAQ")).toThrow();
  });
});

describe("verifyReceiptAssertions", () => {
  const ana = authenticator("ES256");
  const bob = authenticator("EdDSA");
  const receipt = {
    approval_id: "apr_9",
    args_digest: `sha256:${"9".repeat(64)}`,
    decision: "approved" as const,
    decided_by: ["ana@example.com", "bob@example.com"],
  };
  const entry = (who: string, a: ReturnType<typeof authenticator>, reason: string, nonce: string): ReceiptAssertion => ({
    reviewer: who,
    credential_id: a.credentialId,
    nonce,
    reason,
    ...a.assert(
      voteChallenge({ approval_id: receipt.approval_id, args_digest: receipt.args_digest, decision: "approve", reason, reviewer: who, nonce }),
    ),
  });
  const assertions = [entry("ana@example.com", ana, "looks right", "na"), entry("bob@example.com", bob, "", "nb")];
  const keys = {
    "ana@example.com": [{ credential_id: ana.credentialId, public_key: ana.publicKey, alg: -7 }],
    "bob@example.com": [{ credential_id: bob.credentialId, public_key: bob.publicKey, alg: -8 }],
  };

  it("verifies every assertion, ES256 and EdDSA, in decided_by's order", () => {
    expect(verifyReceiptAssertions({ ...receipt, assertions }, keys)).toMatchObject({ ok: true, failures: [] });
    expect(verifyReceiptAssertions({ ...receipt, assertions }, new Map(Object.entries(keys))).ok).toBe(true);
  });

  it("fails after one changed byte, a changed reason, a missing key, another order, or no assertions", () => {
    const sig = Buffer.from(assertions[1]!.signature, "base64url");
    sig[3]! ^= 0x01;
    const flipped = [assertions[0]!, { ...assertions[1]!, signature: b64u(sig) }];
    const r = verifyReceiptAssertions({ ...receipt, assertions: flipped }, keys);
    expect(r.ok).toBe(false);
    expect(r.failures).toEqual(["assertion 2 (bob@example.com): the signature does not verify"]);
    expect(verifyReceiptAssertions({ ...receipt, assertions: [{ ...assertions[0]!, reason: "other" }, assertions[1]!] }, keys).ok).toBe(false);
    expect(verifyReceiptAssertions({ ...receipt, assertions }, { "ana@example.com": keys["ana@example.com"] }).failures).toEqual([
      "assertion 2 (bob@example.com): no such passkey for this reviewer",
    ]);
    expect(verifyReceiptAssertions({ ...receipt, assertions: [...assertions].reverse() }, keys).failures).toContain(
      "the assertions' reviewers are not the receipt's decided_by, in order",
    );
    expect(verifyReceiptAssertions(receipt, keys)).toMatchObject({ ok: false, failures: ["the receipt carries no passkey assertions"] });
    expect(verifyReceiptAssertions({ ...receipt, assertions: [{ reviewer: 1 }] }, keys).ok).toBe(false);
  });
});
