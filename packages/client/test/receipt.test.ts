import { CompactSign, exportJWK, generateKeyPair, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { argsDigest } from "../src/args-digest.js";
import { decodeReceiptUnverified, verifyReceipt, type ReceiptPayload } from "../src/index.js";
import { caught, fake, signReceipt, SLUG, useFakeCountersign } from "./fake-countersign.js";

useFakeCountersign();

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

  it("finds the right key among several without kid (rotation)", async () => {
    const older = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const strip = ({ kid: _kid, ...rest }: JWK) => rest;
    const keys = [strip(await exportJWK(older.publicKey)), strip(fake.publicJwk)];
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload()))).setProtectedHeader({ alg: "EdDSA" }).sign(fake.signingKey);
    expect(await verifyReceipt(jws, { keys })).toEqual(payload());
  });
});
