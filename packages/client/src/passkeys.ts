/**
 * Passkey-attested votes (docs/passkeys.md), checked offline: the challenge a
 * reviewer's authenticator signed, a COSE public key read into a Node key, one
 * WebAuthn assertion verified against it, and every assertion a receipt
 * carries. Node built-ins only (node:crypto); the server uses the same code.
 */
import { createHash, createPublicKey, verify as verifySignature, type JsonWebKey, type KeyObject } from "node:crypto";
import { canonicalJson } from "./args-digest.js";
import type { ReceiptAssertion, ReceiptPayload } from "./types.js";

/** What a vote's WebAuthn challenge binds (docs/passkeys.md). */
export interface VoteChallengeFields {
  approval_id: string;
  args_digest: string;
  decision: "approve" | "deny";
  /** The vote's reason, "" when none. */
  reason: string;
  /** The reviewer's email. */
  reviewer: string;
  /** The server-issued single-use nonce. */
  nonce: string;
}

/** SHA-256(UTF-8(JCS({approval_id, args_digest, decision, reason, reviewer, nonce}))): the 32 bytes the authenticator signs over. */
export function voteChallenge(fields: VoteChallengeFields): Buffer {
  const { approval_id, args_digest, decision, reason, reviewer, nonce } = fields;
  const text = canonicalJson({ approval_id, args_digest, decision, reason, reviewer, nonce });
  return createHash("sha256").update(text, "utf8").digest();
}

// ---- COSE keys (RFC 9052/9053), read from their CBOR encoding ----

/** COSE algorithm numbers this module verifies. */
export const COSE_ALGORITHMS = { ES256: -7, EdDSA: -8, ES384: -35, ES512: -36, RS256: -257 } as const;

type Cbor = number | Uint8Array | string | Cbor[] | Map<Cbor, Cbor> | boolean | null;

class CborError extends Error {}

/** A minimal CBOR decoder for COSE keys: integers, byte and text strings, arrays, maps, simple values. */
function decodeCbor(bytes: Uint8Array): Cbor {
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new CborError("truncated CBOR");
  };
  const length = (info: number): number => {
    if (info < 24) return info;
    const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (size === 0) throw new CborError("unsupported CBOR length");
    need(size);
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + bytes[at + i]!;
    at += size;
    if (!Number.isSafeInteger(n)) throw new CborError("CBOR integer too large");
    return n;
  };
  const item = (depth: number): Cbor => {
    if (depth > 8) throw new CborError("CBOR nested too deeply");
    need(1);
    const head = bytes[at++]!;
    const major = head >> 5;
    const info = head & 31;
    switch (major) {
      case 0:
        return length(info);
      case 1:
        return -1 - length(info);
      case 2: {
        const n = length(info);
        need(n);
        const out = bytes.slice(at, at + n);
        at += n;
        return out;
      }
      case 3: {
        const n = length(info);
        need(n);
        const out = new TextDecoder("utf-8", { fatal: true }).decode(bytes.slice(at, at + n));
        at += n;
        return out;
      }
      case 4: {
        const n = length(info);
        const out: Cbor[] = [];
        for (let i = 0; i < n; i++) out.push(item(depth + 1));
        return out;
      }
      case 5: {
        const n = length(info);
        const out = new Map<Cbor, Cbor>();
        for (let i = 0; i < n; i++) {
          const k = item(depth + 1);
          out.set(k, item(depth + 1));
        }
        return out;
      }
      case 7:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        throw new CborError("unsupported CBOR simple value");
      default:
        throw new CborError("unsupported CBOR type");
    }
  };
  const value = item(0);
  if (at !== bytes.length) throw new CborError("trailing bytes after the CBOR value");
  return value;
}

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** A COSE public key (base64url or bytes) as its algorithm number and a JWK. Throws on anything else. */
export function coseKeyToJwk(cose: string | Uint8Array): { alg: number; jwk: JsonWebKey } {
  const bytes = typeof cose === "string" ? Buffer.from(cose, "base64url") : cose;
  const map = decodeCbor(bytes);
  if (!(map instanceof Map)) throw new Error("COSE key is not a CBOR map");
  const get = (k: number) => map.get(k);
  const bin = (k: number): Uint8Array => {
    const v = get(k);
    if (!(v instanceof Uint8Array)) throw new Error(`COSE key parameter ${k} is missing`);
    return v;
  };
  const kty = get(1);
  const alg = get(3);
  if (typeof alg !== "number") throw new Error("COSE key has no algorithm");
  if (kty === 2) {
    const curves: Record<number, [string, number]> = { 1: ["P-256", 32], 2: ["P-384", 48], 3: ["P-521", 66] };
    const curve = curves[get(-1) as number];
    if (!curve) throw new Error("unsupported COSE EC2 curve");
    const x = bin(-2);
    const y = bin(-3);
    if (x.length !== curve[1] || y.length !== curve[1]) throw new Error("COSE EC2 coordinates have the wrong length");
    return { alg, jwk: { kty: "EC", crv: curve[0], x: b64u(x), y: b64u(y) } };
  }
  if (kty === 1) {
    if (get(-1) !== 6) throw new Error("unsupported COSE OKP curve (only Ed25519)");
    const x = bin(-2);
    if (x.length !== 32) throw new Error("COSE Ed25519 key has the wrong length");
    return { alg, jwk: { kty: "OKP", crv: "Ed25519", x: b64u(x) } };
  }
  if (kty === 3) return { alg, jwk: { kty: "RSA", n: b64u(bin(-1)), e: b64u(bin(-2)) } };
  throw new Error("unsupported COSE key type");
}

const HASH_OF: Record<number, string | null> = { [-7]: "sha256", [-35]: "sha384", [-36]: "sha512", [-8]: null, [-257]: "sha256" };
const KTY_OF: Record<number, string> = { [-7]: "EC", [-35]: "EC", [-36]: "EC", [-8]: "OKP", [-257]: "RSA" };

function publicKeyOf(cose: string | Uint8Array): { alg: number; key: KeyObject } {
  const { alg, jwk } = coseKeyToJwk(cose);
  if (!(alg in HASH_OF)) throw new Error(`unsupported COSE algorithm ${alg}`);
  if (KTY_OF[alg] !== jwk.kty) throw new Error("COSE algorithm does not fit the key type");
  return { alg, key: createPublicKey({ key: jwk, format: "jwk" }) };
}

// ---- one assertion ----

export interface StoredAssertion {
  authenticator_data: string;
  client_data_json: string;
  signature: string;
}

export interface VerifyAssertionOptions {
  /** The challenge the assertion must answer (the 32 bytes of voteChallenge). */
  challenge: Uint8Array;
  /** When given, clientDataJSON's origin must equal it. */
  origin?: string;
  /** When given, authenticatorData's rpIdHash must be SHA-256 of it. */
  rpId?: string;
}

export type AssertionCheck = { ok: true } | { ok: false; reason: string };

/**
 * One WebAuthn assertion against a COSE public key: clientDataJSON is a
 * `webauthn.get` over exactly this challenge, user presence and user
 * verification are flagged, and the signature over authenticatorData ‖
 * SHA-256(clientDataJSON) holds. Never throws: a malformed input is a failure.
 */
export function verifyAssertion(assertion: StoredAssertion, publicKey: string | Uint8Array, options: VerifyAssertionOptions): AssertionCheck {
  try {
    const clientData = Buffer.from(assertion.client_data_json, "base64url");
    const authData = Buffer.from(assertion.authenticator_data, "base64url");
    const signature = Buffer.from(assertion.signature, "base64url");
    let parsed: { type?: unknown; challenge?: unknown; origin?: unknown };
    try {
      parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(clientData)) as typeof parsed;
    } catch {
      return { ok: false, reason: "clientDataJSON is not JSON" };
    }
    if (parsed.type !== "webauthn.get") return { ok: false, reason: "clientDataJSON is not an assertion (type)" };
    if (parsed.challenge !== b64u(options.challenge)) return { ok: false, reason: "the assertion answers another challenge" };
    if (options.origin !== undefined && parsed.origin !== options.origin) return { ok: false, reason: "the assertion was made for another origin" };
    if (authData.length < 37) return { ok: false, reason: "authenticatorData is too short" };
    if (options.rpId !== undefined && !authData.subarray(0, 32).equals(createHash("sha256").update(options.rpId, "utf8").digest())) {
      return { ok: false, reason: "the assertion was made for another relying party" };
    }
    const flags = authData[32]!;
    if (!(flags & 0x01)) return { ok: false, reason: "user presence is not flagged" };
    if (!(flags & 0x04)) return { ok: false, reason: "user verification is not flagged" };
    let key: { alg: number; key: KeyObject };
    try {
      key = publicKeyOf(publicKey);
    } catch (e) {
      return { ok: false, reason: `the public key cannot be used: ${e instanceof Error ? e.message : String(e)}` };
    }
    const signed = Buffer.concat([authData, createHash("sha256").update(clientData).digest()]);
    const good = verifySignature(HASH_OF[key.alg] ?? null, signed, key.key, signature);
    return good ? { ok: true } : { ok: false, reason: "the signature does not verify" };
  } catch (e) {
    return { ok: false, reason: `the assertion cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  }
}

// ---- a receipt's assertions ----

/** A reviewer's passkey as `GET /api/v1/reviewers/{email}/passkeys` lists it. */
export interface ReviewerPasskey {
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  alg?: number;
}

export type PasskeysByReviewer = Record<string, readonly ReviewerPasskey[]> | ReadonlyMap<string, readonly ReviewerPasskey[]>;

export interface ReceiptAssertionResult {
  reviewer: string;
  credential_id: string;
  ok: boolean;
  reason?: string;
}

export interface ReceiptAssertionsCheck {
  ok: boolean;
  /** One entry per assertion, in the receipt's order. */
  assertions: ReceiptAssertionResult[];
  /** Every failure, worded for a person (empty when ok). */
  failures: string[];
}

const isText = (v: unknown, max = 4096): v is string => typeof v === "string" && v.length <= max;

function assertionShape(a: unknown): a is ReceiptAssertion {
  if (typeof a !== "object" || a === null) return false;
  const r = a as Record<string, unknown>;
  return (
    isText(r.reviewer, 320) &&
    isText(r.credential_id, 1024) &&
    isText(r.nonce, 256) &&
    isText(r.authenticator_data, 65536) &&
    isText(r.client_data_json, 65536) &&
    isText(r.signature, 8192) &&
    isText(r.reason, 8000)
  );
}

/**
 * Checks every assertion a receipt carries (docs/passkeys.md) against the
 * reviewers' passkeys: the challenge is recomputed from the receipt's
 * approval_id and args_digest, "approve", and the entry's reason, reviewer and
 * nonce; the reviewers must be the receipt's `decided_by`, in order. Verify the
 * receipt's own signature first (verifyReceipt); this checks what it carries.
 * Never throws.
 */
export function verifyReceiptAssertions(
  payload: Pick<ReceiptPayload, "approval_id" | "args_digest" | "decision" | "decided_by"> & { assertions?: unknown },
  passkeysByReviewer: PasskeysByReviewer,
  options: { origin?: string; rpId?: string } = {},
): ReceiptAssertionsCheck {
  const failures: string[] = [];
  const results: ReceiptAssertionResult[] = [];
  const list = payload.assertions;
  if (!Array.isArray(list) || list.length === 0) {
    return { ok: false, assertions: [], failures: ["the receipt carries no passkey assertions"] };
  }
  const keysOf = (email: string): readonly ReviewerPasskey[] =>
    (passkeysByReviewer instanceof Map
      ? (passkeysByReviewer as ReadonlyMap<string, readonly ReviewerPasskey[]>).get(email)
      : (passkeysByReviewer as Record<string, readonly ReviewerPasskey[]>)[email]) ?? [];
  list.forEach((entry: unknown, i) => {
    if (!assertionShape(entry)) {
      failures.push(`assertion ${i + 1} is malformed`);
      results.push({ reviewer: "", credential_id: "", ok: false, reason: "malformed" });
      return;
    }
    const passkey = keysOf(entry.reviewer).find((k) => k.credential_id === entry.credential_id);
    let check: AssertionCheck;
    if (!passkey) {
      check = { ok: false, reason: "no such passkey for this reviewer" };
    } else {
      const challenge = voteChallenge({
        approval_id: payload.approval_id,
        args_digest: payload.args_digest,
        decision: "approve",
        reason: entry.reason,
        reviewer: entry.reviewer,
        nonce: entry.nonce,
      });
      check = verifyAssertion(entry, passkey.public_key, { challenge, ...options });
    }
    results.push({ reviewer: entry.reviewer, credential_id: entry.credential_id, ok: check.ok, ...(check.ok ? {} : { reason: check.reason }) });
    if (!check.ok) failures.push(`assertion ${i + 1} (${entry.reviewer}): ${check.reason}`);
  });
  if (payload.decision === "approved") {
    const reviewers = results.map((r) => r.reviewer);
    const decidedBy = Array.isArray(payload.decided_by) ? payload.decided_by : [];
    if (reviewers.length !== decidedBy.length || reviewers.some((r, i) => r !== decidedBy[i])) {
      failures.push("the assertions' reviewers are not the receipt's decided_by, in order");
    }
  }
  return { ok: failures.length === 0, assertions: results, failures };
}
