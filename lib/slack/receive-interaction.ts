// The whole of POST /api/slack/interactions (docs/slack.md), from the raw
// request to the answer. Slack's signature is checked before anything in
// the body is read: the size cap while reading, then `v0=` HMAC-SHA256 over
// `v0:{timestamp}:{body}` with the signing secret (Slack's own verifier,
// from @slack/bolt, constant time), the timestamp within five minutes either
// way. A request that fails gets one uniform 401 and is counted for the
// audit trail (a per-minute tally, like refused webhooks).
import "server-only";
import { verifySlackRequest } from "@slack/bolt/dist/receivers/verify-request";
import { db } from "../db/client";
import { env } from "../env";
import { AppError } from "../errors";
import { errorResult, readBodyLimited, type HttpResult, type RequestBody } from "../http/respond";
import { countRefusal, SLACK_SUBJECT } from "../audit/refusal-tallies";
import { errorFields, log } from "../log";
import { handleInteraction } from "./interactions";
import { slackChannel } from "./slack-client";

const MAX_BODY_BYTES = 64 * 1024;
const MAX_SKEW_SECONDS = 5 * 60;

/** Why a request's signature does not hold, or null when it does. */
export function slackSignatureProblem(
  secret: string,
  headers: Headers,
  rawBody: string,
  nowMs = Date.now(),
): "missing-headers" | "stale" | "bad-signature" | null {
  const timestamp = headers.get("x-slack-request-timestamp") ?? "";
  const signature = headers.get("x-slack-signature") ?? "";
  if (!/^\d{1,12}$/.test(timestamp) || !signature) return "missing-headers";
  // Slack's verifier refuses a timestamp too old; one too far ahead is refused here.
  if (Math.abs(Number(timestamp) - Math.floor(nowMs / 1000)) > MAX_SKEW_SECONDS) return "stale";
  try {
    verifySlackRequest({
      signingSecret: secret,
      body: rawBody,
      headers: { "x-slack-signature": signature, "x-slack-request-timestamp": Number(timestamp) },
      nowMilliseconds: nowMs,
    });
    return null;
  } catch {
    return "bad-signature";
  }
}

export async function receiveInteraction(req: RequestBody): Promise<HttpResult> {
  try {
    const secret = env().SLACK_SIGNING_SECRET;
    if (slackChannel() === "off" || !secret) throw new AppError("not-found", "Slack is not set up on this server");
    const raw = await readBodyLimited(req, MAX_BODY_BYTES);
    if (raw === "too-large") throw new AppError("too-large");
    const body = Buffer.from(raw).toString("utf8");
    const problem = slackSignatureProblem(secret, req.headers, body);
    if (problem) {
      await countRefusal(db(), { kind: "slack.interaction_rejected", subject: SLACK_SUBJECT, reason: problem }).catch((e) =>
        log.warn("could not count a refused Slack interaction", errorFields(e)),
      );
      throw new AppError("invalid-signature", problem);
    }
    // Slack sends interactions form-encoded, the JSON in one `payload` field.
    const payload = new URLSearchParams(body).get("payload");
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload ?? "");
    } catch {
      throw new AppError("invalid-request", "the body has no JSON payload field");
    }
    const answer = await handleInteraction(parsed);
    if (answer.status === 400) throw new AppError("invalid-request", answer.error);
    // Slack wants an empty 200 unless there is something to say (a dialog's errors).
    return { status: 200, body: answer.body };
  } catch (e) {
    return errorResult(e, { route: "slack-interactions" });
  }
}
