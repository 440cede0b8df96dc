// Limits on the credentials sign-in (docs/security.md, abuse limits). Counted in
// the database, so they hold across instances.
//
// - Per client address (the address the server stamped: the socket, or what
//   the trusted proxies saw; never a header the client chose): 30 attempts a
//   minute across all accounts.
// - Per account and client address: 10 attempts a minute.
// - Per account as a whole: no hard limit, which would let anyone lock the
//   owner out. Past 10 failures in the last minute or two, every attempt on
//   the account waits first, longer the more failures there were: guessing
//   slows down, while the owner, from an address the flood does not use,
//   still signs in with the right password (after the wait).
import "server-only";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { hitRateLimit } from "../rate-limit";
import { addressKey } from "../http/client-address";
import { countRefusal, SIGN_IN_SUBJECT } from "../audit/refusal-tallies";
import { log } from "../log";

export const SIGNIN_PER_ADDRESS_PER_MINUTE = 30;
export const SIGNIN_PER_ACCOUNT_ADDRESS_PER_MINUTE = 10;
export const ACCOUNT_FREE_FAILURES = 10;
export const ACCOUNT_DELAY_STEP_MS = 200;
export const ACCOUNT_DELAY_MAX_MS = 5_000;
const WINDOW_SECONDS = 60;

/** Attempts without a stamped address (not served through scripts/server) share one bucket. */
const UNKNOWN_ADDRESS = "(unknown)";
let warnedNoAddress = false;

export type SignInGate = { limited: true } | { limited: false; delayMs: number };

export function accountDelayMs(recentFailures: number): number {
  return Math.min(ACCOUNT_DELAY_MAX_MS, Math.max(0, recentFailures - ACCOUNT_FREE_FAILURES) * ACCOUNT_DELAY_STEP_MS);
}

/** Counts the attempt against its address and (account, address); says whether it may go on, and after how long a wait. */
export async function gateSignIn(email: string, address: string | null): Promise<SignInGate> {
  if (!address && !warnedNoAddress) {
    warnedNoAddress = true;
    log.warn("sign-in without a client address: all such attempts share one limit (serve through scripts/start.ts)");
  }
  const from = address ? addressKey(address) : UNKNOWN_ADDRESS;
  const byAddress = await hitRateLimit(direct(), `signin:ip:${from}`, SIGNIN_PER_ADDRESS_PER_MINUTE, WINDOW_SECONDS);
  if (!byAddress.allowed) return { limited: true };
  const byPair = await hitRateLimit(direct(), `signin:pair:${from}:${email}`, SIGNIN_PER_ACCOUNT_ADDRESS_PER_MINUTE, WINDOW_SECONDS);
  if (!byPair.allowed) return { limited: true };
  return { limited: false, delayMs: accountDelayMs(await recentFailures(email)) };
}

/** A wrong password (or an unknown email) for this account. */
export async function noteSignInFailure(email: string): Promise<void> {
  await hitRateLimit(direct(), failureKey(email), Number.MAX_SAFE_INTEGER, WINDOW_SECONDS);
}

/** A refused attempt is counted per minute, not audited one by one. */
export async function countRefusedSignIn(reason: "rate-limited" | "busy"): Promise<void> {
  await countRefusal(db(), { kind: "user.sign_in_refused", subject: SIGN_IN_SUBJECT, reason });
}

function failureKey(email: string): string {
  return `signin:failures:${email}`;
}

/** Failures in this window and the one before: the delay does not vanish at a window's edge. */
async function recentFailures(email: string): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const previous = now - (now % WINDOW_SECONDS) - WINDOW_SECONDS;
  const rows = await db().rateLimitBucket.findMany({ where: { key: failureKey(email), windowStart: { gte: previous } }, select: { count: true } });
  return rows.reduce((n, r) => n + r.count, 0);
}
