// The Slack Web API through Slack's official client (@slack/web-api), set
// up for an outbox: no retries of its own (the outbox retries with back-off
// and a lease), and a rate-limited call fails at once with Slack's
// Retry-After, which the outbox honours. Slack is on when the bot token and
// the signing secret are both set.
import "server-only";
import { ErrorCode, WebClient, type WebAPICallError } from "@slack/web-api";
import { env } from "../env";

let client: WebClient | undefined;

export function slackChannel(): "on" | "off" {
  const e = env();
  return e.SLACK_BOT_TOKEN && e.SLACK_SIGNING_SECRET ? "on" : "off";
}

export function slack(): WebClient {
  const e = env();
  if (!e.SLACK_BOT_TOKEN) throw new Error("Slack is off (SLACK_BOT_TOKEN is not set)");
  client ??= new WebClient(e.SLACK_BOT_TOKEN, {
    slackApiUrl: e.SLACK_API_URL,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
    // The client logs request details at debug; Countersign logs outcomes itself.
    logLevel: undefined,
  });
  return client;
}

/**
 * A Slack failure in words that carry no message content: Slack's error
 * code (`channel_not_found`, `ratelimited`), or the kind of failure. Rate
 * limits carry Slack's Retry-After.
 */
export function slackFailure(e: unknown): { error: string; retryAfterMs?: number } {
  const err = e as WebAPICallError & { retryAfter?: number; data?: { error?: string }; statusCode?: number };
  switch (err?.code) {
    case ErrorCode.RateLimitedError:
      return { error: "rate limited by Slack", retryAfterMs: Math.max(1, err.retryAfter ?? 1) * 1000 };
    case ErrorCode.PlatformError:
      return { error: `Slack answered ${String(err.data?.error ?? "an error")}` };
    case ErrorCode.HTTPError:
      return { error: `HTTP ${err.statusCode ?? "error"} from Slack` };
    case ErrorCode.RequestError:
      return { error: "Slack could not be reached" };
    default:
      return { error: e instanceof Error ? e.name : "error" };
  }
}
