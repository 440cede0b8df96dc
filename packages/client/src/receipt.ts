/**
 * Offline verification of consume receipts (docs/api.md): a compact JWS signed
 * with EdDSA (Ed25519), whose public keys Countersign serves at
 * `/.well-known/jwks.json`.
 */
import {
  compactVerify,
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type CryptoKey,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  type FlattenedJWSInput,
} from "jose";
import { CountersignError } from "./errors.js";
import { checkReceiptPayload } from "./shape.js";
import type { ReceiptPayload } from "./types.js";

/** "EdDSA" (RFC 8037) and its fully specified name "Ed25519"; both mean Ed25519 in jose 6. */
const RECEIPT_ALGORITHMS = ["EdDSA", "Ed25519"];

type KeyResolver = (header?: JWSHeaderParameters, token?: FlattenedJWSInput) => Promise<CryptoKey>;

/** Where the keys come from: the JWKS URL, or the JWKS document itself. */
export type JwksSource = string | URL | JSONWebKeySet;

/** Fields a receipt must carry, checked after the signature. */
export type ReceiptExpectation = Partial<
  Pick<ReceiptPayload, "approval_id" | "service" | "run_id" | "call_id" | "tool" | "args_digest" | "decision">
>;

export interface VerifyReceiptOptions {
  /** Each field given must equal the receipt's (e.g. the binding the executor consumed with). */
  expected?: ReceiptExpectation;
  /**
   * Accept a receipt past its `exp`: for checking old evidence, never for
   * deciding whether to run a call (default false).
   */
  allowExpired?: boolean;
  /** How far the executor's clock may lag Countersign's, in seconds (default 30). */
  clockToleranceSeconds?: number;
  /** The time to check expiry against (default: now). */
  now?: Date;
}

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

// Remote key sets are cached by URL so repeated verifications do not refetch.
const remoteSets = new Map<string, KeyResolver>();

function resolverFor(source: JwksSource): KeyResolver {
  if (typeof source === "string" || source instanceof URL) {
    const url = new URL(source.toString());
    let resolver = remoteSets.get(url.href);
    if (!resolver) {
      resolver = createRemoteJWKSet(url);
      remoteSets.set(url.href, resolver);
    }
    return resolver;
  }
  return createLocalJWKSet(source);
}

async function verifySignature(jws: string, resolver: KeyResolver): Promise<Uint8Array> {
  const options = { algorithms: RECEIPT_ALGORITHMS };
  try {
    return (await compactVerify(jws, resolver, options)).payload;
  } catch (error) {
    // A key set without "kid"s can hold several Ed25519 keys (e.g. across a
    // rotation): try each candidate the resolver found.
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return (await compactVerify(jws, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

function refused(message: string, cause?: unknown): CountersignError {
  return new CountersignError({ code: "invalid-receipt", status: 0, message, cause });
}

/**
 * Verifies a receipt's signature against the JWKS and returns its payload.
 *
 * @throws CountersignError "invalid-receipt" when the JWS is malformed, uses
 *   another algorithm, matches no key, fails the signature, carries a payload
 *   that is not the contract's, differs from `options.expected`, or has
 *   expired (unless `options.allowExpired`);
 *   "timeout" / "network-error" when the JWKS URL cannot be fetched.
 */
export async function verifyReceipt(jws: string, jwksUrlOrJwks: JwksSource, options: VerifyReceiptOptions = {}): Promise<ReceiptPayload> {
  if (typeof jws !== "string" || jws.split(".").length !== 3) throw refused("receipt is not a compact JWS");
  let resolver: KeyResolver;
  try {
    resolver = resolverFor(jwksUrlOrJwks);
  } catch (error) {
    throw refused("the JWKS is malformed", error);
  }

  let payloadBytes: Uint8Array;
  try {
    payloadBytes = await verifySignature(jws, resolver);
  } catch (error) {
    if (error instanceof errors.JWKSTimeout) {
      throw new CountersignError({ code: "timeout", status: 0, message: "fetching the JWKS timed out", cause: error });
    }
    if (!(error instanceof errors.JOSEError)) {
      throw new CountersignError({ code: "network-error", status: 0, message: "could not fetch the JWKS", cause: error });
    }
    throw refused(`receipt verification failed: ${error.code}`, error);
  }

  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payloadBytes));
  } catch (error) {
    throw refused("receipt payload is not JSON", error);
  }
  const checked = checkReceiptPayload(payload);
  if (!checked.ok) throw refused(`receipt payload field ${checked.field} is missing or invalid`);

  for (const [field, value] of Object.entries(options.expected ?? {})) {
    if (value !== undefined && (checked.value as unknown as Record<string, unknown>)[field] !== value) {
      throw refused(`receipt ${field} does not match the expected value`);
    }
  }
  if (!options.allowExpired) {
    const now = (options.now ?? new Date()).getTime() / 1000;
    if (now > checked.value.exp + (options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS)) {
      throw refused(`receipt expired at ${new Date(checked.value.exp * 1000).toISOString()}`);
    }
  }
  return checked.value;
}

/**
 * The receipt's payload WITHOUT verifying anything. For display or logging only;
 * use verifyReceipt for evidence.
 */
export function decodeReceiptUnverified(jws: string): { header: JWSHeaderParameters; payload: unknown } {
  const parts = jws.split(".");
  if (parts.length !== 3) throw refused("receipt is not a compact JWS");
  try {
    const header = decodeProtectedHeader(jws) as JWSHeaderParameters;
    const payload: unknown = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8"));
    return { header, payload };
  } catch (error) {
    throw refused("receipt cannot be decoded", error);
  }
}
