/** Waiting for a decision: repeated long polls with back-off inside a time budget (docs/api.md). */
import { CountersignError } from "./errors.js";
import { abortedError } from "./http.js";
import type { WaitForDecisionOptions } from "./options.js";
import type { ApprovalState } from "./types.js";

/** Longest long-poll the contract allows, in seconds (docs/api.md). */
export const MAX_WAIT_SECONDS = 30;

/** One long poll of the request's state for up to `wait` seconds. */
export type PollApproval = (wait: number, signal: AbortSignal | undefined) => Promise<ApprovalState>;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal as AbortSignal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Failures worth another poll: no answer, a 5xx or a 429. */
function isRetriable(error: unknown): error is CountersignError {
  return (
    error instanceof CountersignError &&
    (error.code === "timeout" ||
      error.code === "network-error" ||
      error.code === "rate-limited" ||
      (error.code === "unexpected-response" && error.status >= 500))
  );
}

/**
 * Polls until the request leaves `pending` or `timeoutMs` runs out, and returns
 * the last state seen (it may still be "pending"). Retriable failures back off
 * (or honour Retry-After) within the budget; other errors are thrown.
 */
export async function pollUntilDecided(poll: PollApproval, options: WaitForDecisionOptions): Promise<ApprovalState> {
  const deadline = Date.now() + options.timeoutMs;
  const pollWait = Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.floor(options.pollWaitSeconds ?? MAX_WAIT_SECONDS)));
  let backoffMs = 500;
  let last: ApprovalState | undefined;
  for (;;) {
    const remainingMs = deadline - Date.now();
    const wait = Math.max(0, Math.min(pollWait, Math.floor(remainingMs / 1000)));
    const started = Date.now();
    try {
      last = await poll(wait, options.signal);
      backoffMs = 500;
      if (last.status !== "pending" || Date.now() >= deadline) return last;
      // A server that answered early (or ignores wait) must not be hammered.
      const elapsed = Date.now() - started;
      if (elapsed < 1000) await sleep(Math.min(1000 - elapsed, Math.max(0, deadline - Date.now())), options.signal);
    } catch (error) {
      if (!isRetriable(error)) throw error;
      const delay = error.code === "rate-limited" ? (error.retryAfter ?? 1) * 1000 : backoffMs;
      backoffMs = Math.min(backoffMs * 2, 8000);
      if (Date.now() + delay >= deadline) {
        if (last) return last;
        throw error;
      }
      await sleep(delay, options.signal);
    }
    if (Date.now() >= deadline && last) return last;
  }
}
