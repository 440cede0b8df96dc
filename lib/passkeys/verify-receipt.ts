// `receipt verify FILE` (docs/passkeys.md): a consume receipt checked against
// this database: its signature against the receipt keys (every key ever
// used, as the JWKS publishes them), its payload's shape, and every passkey
// assertion it carries against the reviewers' stored passkeys, with the
// client's own verifiers (@countersign/client), so the command and an
// executor checking offline agree. An expired receipt is still evidence: its
// expiry is reported, not refused.
import "server-only";
import {
  decodeReceiptUnverified,
  isCountersignError,
  verifyReceipt,
  verifyReceiptAssertions,
  type ReceiptAssertionResult,
} from "@countersign/client";
import type { JWK } from "jose";
import { db } from "../db/client";
import { passkeysByEmail } from "./manage-passkeys";

export type ReceiptCheck = {
  ok: boolean;
  approval_id?: string;
  decision?: string;
  /** Information that is not a failure, e.g. "expired at …". */
  notes: string[];
  failures: string[];
  assertions: ReceiptAssertionResult[];
};

const MAX_RECEIPT_CHARS = 1_000_000;

export async function verifyReceiptText(text: string, now = new Date()): Promise<ReceiptCheck> {
  const jws = text.trim();
  const result: ReceiptCheck = { ok: false, notes: [], failures: [], assertions: [] };
  if (jws.length === 0 || jws.length > MAX_RECEIPT_CHARS || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(jws)) {
    result.failures.push("the file does not hold a compact JWS receipt (three base64url parts separated by dots)");
    return result;
  }
  const keys = (await db().signingKey.findMany({ select: { publicJwk: true } })).map((k) => JSON.parse(k.publicJwk) as JWK);
  let payload: Awaited<ReturnType<typeof verifyReceipt>>;
  try {
    payload = await verifyReceipt(jws, { keys });
  } catch (e) {
    result.failures.push(
      isCountersignError(e) ? `the receipt does not verify: ${e.message}` : "the receipt does not verify against this database's receipt keys",
    );
    return result;
  }
  result.approval_id = payload.approval_id;
  result.decision = payload.decision;
  const raw = decodeReceiptUnverified(jws).payload as { exp?: unknown; assertions?: unknown };
  if (typeof raw.exp === "number") {
    const expiredAt = new Date(raw.exp * 1000);
    if (expiredAt.getTime() <= now.getTime())
      result.notes.push(`expired at ${expiredAt.toISOString()} (still verified: expiry limits its use, not its evidence)`);
  }
  const approval = await db().approval.findUnique({ where: { id: payload.approval_id }, select: { requirePasskey: true } });
  if (raw.assertions !== undefined) {
    const reviewers = Array.isArray(raw.assertions)
      ? raw.assertions.flatMap((a) =>
          typeof a === "object" && a !== null && typeof (a as { reviewer?: unknown }).reviewer === "string"
            ? [(a as { reviewer: string }).reviewer]
            : [],
        )
      : [];
    const passkeys = await passkeysByEmail(reviewers.slice(0, 50));
    const check = verifyReceiptAssertions({ ...payload, assertions: raw.assertions }, passkeys);
    result.assertions = check.assertions;
    result.failures.push(...check.failures);
  } else if (approval?.requirePasskey && payload.decision === "approved") {
    result.failures.push("the request's policy required passkeys, but the receipt carries no assertions");
  }
  if (!approval) result.notes.push("this database holds no request with the receipt's approval_id");
  result.ok = result.failures.length === 0;
  return result;
}
