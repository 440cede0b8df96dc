/**
 * Verification of Countersign's outbound webhooks: the `approval.decided` and
 * `approval.executed` callbacks (docs/api.md) and the review notices of the
 * notification webhook.
 */
import { verifyWebhook, webhookHeadersFrom, type WebhookHeaderValues } from "./standard-webhooks.js";
import { CountersignError } from "./errors.js";
import { checkCallbackEvent, checkReviewNoticeEvent, type Checked } from "./shape.js";
import type { CallbackEvent, ReviewNoticeEvent } from "./types.js";

/** The callback's headers: already picked out, a Fetch `Headers`, or a Node header record. */
export type CallbackHeaders = WebhookHeaderValues | Headers | Record<string, string | string[] | undefined> | null | undefined;

export interface VerifyCallbackInput {
  /** The service's callback secret(s), `whsec_…`; two during a rotation. */
  secret: string | readonly string[];
  headers: CallbackHeaders;
  /** The request body exactly as received. */
  rawBody: Uint8Array;
  /** Unix seconds; defaults to now. */
  now?: number;
}

function headerValues(headers: CallbackHeaders): WebhookHeaderValues | null | undefined {
  if (!headers) return headers;
  if (typeof (headers as Headers).get === "function") return webhookHeadersFrom(headers as Headers);
  if ("id" in headers || "timestamp" in headers || "signature" in headers) return headers as WebhookHeaderValues;
  return webhookHeadersFrom(headers as Record<string, string | string[] | undefined>);
}

/**
 * Verifies a callback's Standard Webhooks signature, then parses its body:
 * an `approval.decided` event (a request was decided) or an
 * `approval.executed` event (its executor reported the run). Tell them apart
 * by `type`:
 *
 *   const event = verifyCallback({ secret, headers, rawBody });
 *   if (event.type === "approval.executed") recordRun(event.data.status, event.data.result_digest);
 *   else recordDecision(event.data.decision, event.data.reviews);
 *
 * @throws CountersignError "invalid-signature" (with `reason`: "missing-headers",
 *   "bad-timestamp", "stale" or "bad-signature") — answer the request with 401;
 *   "invalid-request" when a correctly signed body is neither event (reason
 *   names the first bad field, "type" for an unknown event type).
 */
export function verifyCallback(input: VerifyCallbackInput): CallbackEvent {
  return verifySigned(input, "callback", checkCallbackEvent, "an `approval.decided` or `approval.executed` event");
}

/**
 * Verifies a notification webhook's signature (NOTIFY_WEBHOOK_SECRET for the
 * global URL, the service's callback secret for its own URL), then parses it
 * as `approval.needs_review`, `approval.reminder` or `approval.escalated`.
 *
 * @throws CountersignError as verifyCallback does.
 */
export function verifyReviewNotice(input: VerifyCallbackInput): ReviewNoticeEvent {
  return verifySigned(input, "notification", checkReviewNoticeEvent, "a review notice");
}

function verifySigned<T>(input: VerifyCallbackInput, what: string, checkBody: (body: unknown) => Checked<T>, expected: string): T {
  const secrets = typeof input.secret === "string" ? [input.secret] : [...input.secret];
  const result = verifyWebhook({
    secrets,
    headers: headerValues(input.headers),
    rawBody: input.rawBody,
    now: input.now,
  });
  if (!result.ok) {
    throw new CountersignError({
      code: "invalid-signature",
      status: 0,
      reason: result.reason,
      message: `${what} signature refused: ${result.reason}`,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(input.rawBody));
  } catch (error) {
    throw new CountersignError({
      code: "invalid-request",
      status: 0,
      reason: "not-json",
      message: `${what} body is not JSON`,
      cause: error,
    });
  }
  const checked = checkBody(body);
  if (!checked.ok) {
    throw new CountersignError({
      code: "invalid-request",
      status: 0,
      reason: checked.field,
      message: `${what} body field ${checked.field} is missing or invalid (expected ${expected})`,
      body,
    });
  }
  return checked.value;
}
