import { CompactSign, exportJWK, generateKeyPair, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { argsDigest } from "../src/args-digest.js";
import { decodeReceiptUnverified, verifyReceipt, type ReceiptPayload } from "../src/index.js";
import { caught, fake, signReceipt, SLUG, useFakeCountersign } from "./fake-countersign.js";

useFakeCountersign();

const NOW_S = Math.floor(Date.now() / 1000);

describe("verifyReceipt", () => {
  const payload = (): ReceiptPayload => ({
    approval_id: "apr_x",
    service: SLUG,
    run_id: "run_x",
    call_id: "c1",
    tool: "payments.pay",
    args_digest: argsDigest({ a: 1 }),
    decision: "approved",
    decided_by: ["rev@example.com"],
    decided_at: "2026-11-29T18:00:00.000Z",
    consumed_at: "2026-11-29T18:01:00.000Z",
    iat: NOW_S,
    exp: NOW_S + 600,
    policy: { name: "payments", version: 42 },
    audit_seq: 7,
    audit_head: "0f".repeat(32),
  });

  it("accepts a receipt signed by a key of the JWKS (URL or document)", async () => {
    const jws = await signReceipt(payload());
    expect(await verifyReceipt(jws, `${fake.baseUrl}/.well-known/jwks.json`)).toEqual(payload());
    expect(await verifyReceipt(jws, { keys: [fake.publicJwk] })).toEqual(payload());
    expect(decodeReceiptUnverified(jws).payload).toEqual(payload());
  });

  it("rejects a flipped byte in the signature or the payload", async () => {
    const jws = await signReceipt(payload());
    const [header, body, signature] = jws.split(".") as [string, string, string];
    const sig = Buffer.from(signature, "base64url");
    sig[10] = (sig[10] as number) ^ 0x01;
    let error = await caught(verifyReceipt(`${header}.${body}.${sig.toString("base64url")}`, `${fake.baseUrl}/.well-known/jwks.json`));
    expect(error.code).toBe("invalid-receipt");

    const text = Buffer.from(body, "base64url");
    text[5] = (text[5] as number) ^ 0x01;
    error = await caught(verifyReceipt(`${header}.${text.toString("base64url")}.${signature}`, { keys: [fake.publicJwk] }));
    expect(error.code).toBe("invalid-receipt");
  });

  it("rejects another key, another algorithm, a bad payload and an unexpected binding", async () => {
    const other = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    let error = await caught(verifyReceipt(await signReceipt(payload(), other.privateKey), { keys: [fake.publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    const hs = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload())))
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(new Uint8Array(32));
    error = await caught(verifyReceipt(hs, { keys: [fake.publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt(await signReceipt({ ...payload(), decision: "maybe" }), { keys: [fake.publicJwk] }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt(await signReceipt(payload()), { keys: [fake.publicJwk] }, { expected: { tool: "payments.refund" } }));
    expect(error.code).toBe("invalid-receipt");

    error = await caught(verifyReceipt("not.a-jws", { keys: [fake.publicJwk] }));
    expect(error.code).toBe("invalid-receipt");
  });

  it("requires the receipt's time, policy and audit anchor, and checks any assertions' shape", async () => {
    const keys = { keys: [fake.publicJwk] };
    for (const field of ["iat", "exp", "policy", "audit_seq", "audit_head"] as const) {
      const { [field]: _dropped, ...rest } = payload();
      const error = await caught(verifyReceipt(await signReceipt(rest as ReceiptPayload), keys));
      expect(error.code, field).toBe("invalid-receipt");
      expect(error.message).toContain(field);
    }
    const bad: Array<[string, Partial<Record<keyof ReceiptPayload, unknown>>]> = [
      ["exp", { exp: NOW_S - 1, iat: NOW_S }], // expires before it was issued
      ["iat", { iat: 1.5 }],
      ["policy", { policy: { name: "payments" } }],
      ["audit_seq", { audit_seq: 0 }],
      ["audit_head", { audit_head: "AB".repeat(32) }],
      ["standing_approval", { standing_approval: 7 }],
      ["assertions", { assertions: {} }],
      ["assertions", { assertions: [{ reviewer: "r@example.com", credential_id: "a b" }] }],
    ];
    for (const [field, change] of bad) {
      const error = await caught(verifyReceipt(await signReceipt({ ...payload(), ...change } as ReceiptPayload), keys));
      expect(error.message, JSON.stringify(change)).toContain(field);
    }
    const assertion = {
      reviewer: "r@example.com",
      credential_id: "Y3JlZA",
      nonce: "n1",
      reason: "",
      authenticator_data: "YXV0aA",
      client_data_json: "e30",
      signature: "c2ln",
    };
    const withAssertion = { ...payload(), assertions: [assertion] };
    expect(await verifyReceipt(await signReceipt(withAssertion), keys)).toEqual(withAssertion);
  });

  it("refuses an expired receipt unless asked to accept one, with a clock tolerance", async () => {
    const keys = { keys: [fake.publicJwk] };
    const jws = await signReceipt({ ...payload(), iat: NOW_S - 700, exp: NOW_S - 100 });
    const error = await caught(verifyReceipt(jws, keys));
    expect(error.code).toBe("invalid-receipt");
    expect(error.message).toMatch(/expired at \d{4}-/);
    // Evidence checks of old receipts still verify the signature and shape.
    expect((await verifyReceipt(jws, keys, { allowExpired: true })).exp).toBe(NOW_S - 100);
    // Within the tolerance (the executor's clock may run ahead): accepted; past it: refused.
    expect((await verifyReceipt(jws, keys, { clockToleranceSeconds: 120 })).audit_seq).toBe(7);
    expect((await caught(verifyReceipt(jws, keys, { clockToleranceSeconds: 99 }))).code).toBe("invalid-receipt");
    // Checked against the time given.
    const fresh = await signReceipt(payload());
    expect(await verifyReceipt(fresh, keys)).toEqual(payload());
    const later = new Date((NOW_S + 600 + 31) * 1000);
    expect((await caught(verifyReceipt(fresh, keys, { now: later }))).message).toContain("expired");
  });

  it("finds the right key among several without kid (rotation)", async () => {
    const older = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const strip = ({ kid: _kid, ...rest }: JWK) => rest;
    const keys = [strip(await exportJWK(older.publicKey)), strip(fake.publicJwk)];
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload()))).setProtectedHeader({ alg: "EdDSA" }).sign(fake.signingKey);
    expect(await verifyReceipt(jws, { keys })).toEqual(payload());
  });
});
