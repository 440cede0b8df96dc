// The audit record of a refused webhook (docs/api.md): counted per
// minute, service and reason in refusal_tallies, and written to the audit
// chain as one `webhook.rejected` event per row once the minute is over
// (lib/audit/refusal-tallies.ts). Never the payload. Refusals can be driven
// by anyone who can reach the endpoint, so a slug that names no enabled
// service is counted under one shared subject, "(unknown)": a flood of random
// slugs adds one row a minute, not one per slug. The log gets the first few
// of each row a minute; the count covers them all.
import "server-only";
import { db } from "../db/client";
import { countRefusal, UNKNOWN_SERVICE_SUBJECT } from "../audit/refusal-tallies";
import { errorFields, log } from "../log";
import { isDatabaseUnavailable } from "../db/unavailable";

const LOGGED_PER_MINUTE = 20;

/** `service`: the enabled service the slug named, or null (unknown, disabled or not a slug). */
export async function recordWebhookRejection(service: { slug: string } | null, reason: string, status: number): Promise<void> {
  const subject = service?.slug ?? UNKNOWN_SERVICE_SUBJECT;
  try {
    const seen = await countRefusal(db(), { kind: "webhook.rejected", subject, reason });
    if (seen <= LOGGED_PER_MINUTE) log.info("webhook rejected", { service: subject, reason, status });
    if (seen === LOGGED_PER_MINUTE) log.warn("webhook refusals: further ones this minute are only counted", { service: subject, reason });
  } catch (e) {
    // The refusal stands even if it cannot be counted; the database being
    // away is an operational condition (warn), anything else a bug.
    const write = isDatabaseUnavailable(e) ? log.warn : log.error;
    write("could not record webhook rejection", { service: subject, reason, ...errorFields(e) });
  }
}
