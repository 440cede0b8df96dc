// One signed POST to a service-chosen or admin-chosen URL: Standard Webhooks
// headers over the exact body, the target resolved once and every address
// checked first (callback-target.ts), no redirect followed. Callbacks
// (deliver-callbacks.ts) and notification webhooks (lib/notifications) use it.
import "server-only";
import { signWebhook, unixNow } from "@countersign/client";
import { abortOnShutdown, isShuttingDown } from "../shutdown";
import { callbackTargetPolicy, resolveCallbackTarget, type TargetCheck } from "./callback-target";
import { pinnedPost } from "./pinned-post.mjs";

const TIMEOUT_MS = 10_000;

export type SignedPostResult = { ok: boolean; statusCode: number | null; errorClass: string | null };

/**
 * One attempt. The target is resolved once and every address checked
 * (callback-target.ts) before anything is sent; a refused target is recorded
 * as `blocked-target` without a connection, so the attempts list tells an
 * admin nothing about the ports of a host callbacks may not reach.
 */
export async function postSignedWebhook(
  url: string,
  payload: string,
  messageId: string,
  secret: string | readonly string[],
  /** Unsigned extras such as `traceparent` (docs/operations.md, Traces), or a `content-type` other than JSON. */
  extraHeaders: Record<string, string> = {},
): Promise<SignedPostResult> {
  const attempt = abortOnShutdown(AbortSignal.timeout(TIMEOUT_MS));
  try {
    return await post(url, payload, messageId, secret, attempt.signal, extraHeaders);
  } finally {
    attempt.release();
  }
}

async function post(
  url: string,
  payload: string,
  messageId: string,
  secret: string | readonly string[],
  signal: AbortSignal,
  extraHeaders: Record<string, string>,
): Promise<SignedPostResult> {
  const failed = (): SignedPostResult => ({
    ok: false,
    statusCode: null,
    errorClass: isShuttingDown() ? "shutdown" : signal.aborted ? "timeout" : "network",
  });
  let target: TargetCheck;
  try {
    target = await abortable(resolveCallbackTarget(url, callbackTargetPolicy()), signal);
  } catch {
    return failed();
  }
  if (!target.ok) return { ok: false, statusCode: null, errorClass: target.reason === "blocked" ? "blocked-target" : "invalid-url" };
  const timestamp = unixNow();
  try {
    const status = await pinnedPost(
      target.url,
      target.hostname,
      target.addresses,
      {
        "content-type": "application/json",
        // Unsigned extras, and a content type other than JSON (the audit stream's JSON Lines).
        ...extraHeaders,
        "user-agent": "Countersign-Callback/1",
        "webhook-id": messageId,
        "webhook-timestamp": String(timestamp),
        // One `v1,` entry per secret: during a callback secret's rotation, the new one and the previous one.
        "webhook-signature": (typeof secret === "string" ? [secret] : secret)
          .map((k) => signWebhook({ secret: k, id: messageId, timestamp, body: payload }))
          .join(" "),
      },
      payload,
      signal, // stopping the instance cuts an attempt short; it is recorded and retried
    );
    if (status >= 200 && status < 300) return { ok: true, statusCode: status, errorClass: null };
    // A redirect is an answer, never followed.
    return { ok: false, statusCode: status, errorClass: status >= 300 && status < 400 ? "redirect" : "http-status" };
  } catch {
    return failed();
  }
}

/** A DNS lookup cannot be cancelled; stop waiting for it when the attempt is aborted. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
