/** One HTTP exchange with Countersign, and how its answer maps to a result or a CountersignError. */
import { CountersignError, isContractErrorCode, type CountersignErrorCode } from "./errors.js";
import type { CallOptions } from "./options.js";
import { issuesOf, isObject, type Checked } from "./shape.js";

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Where and how a client sends its calls. */
export interface HttpTarget {
  baseUrl: string;
  timeoutMs: number;
  fetchImpl: typeof fetch;
}

/** Parses `Retry-After` (delta-seconds or HTTP-date) into whole seconds. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text);
  const when = Date.parse(text);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, Math.ceil((when - now) / 1000));
}

function errorFromAnswer(answer: HttpAnswer): CountersignError {
  const { status, body } = answer;
  const serverCode = isObject(body) ? body.error : undefined;
  let code: CountersignErrorCode;
  if (isContractErrorCode(serverCode)) code = serverCode;
  else if (status === 429) code = "rate-limited";
  else if (status === 413) code = "too-large";
  else code = "unexpected-response";
  return new CountersignError({
    code,
    status,
    body,
    issues: code === "invalid-request" ? issuesOf(body) : undefined,
    retryAfter: code === "rate-limited" ? parseRetryAfter(answer.headers.get("retry-after")) : undefined,
  });
}

function unexpected(answer: HttpAnswer, detail: string): CountersignError {
  return new CountersignError({
    code: "unexpected-response",
    status: answer.status,
    body: answer.body,
    message: `Countersign answered ${answer.status} outside the contract: ${detail}`,
  });
}

/** The checked body of an answer with one of `okStatuses`; anything else throws. */
export function accept<T>(answer: HttpAnswer, okStatuses: readonly number[], checked: (body: unknown) => Checked<T>): T {
  if (!okStatuses.includes(answer.status)) {
    throw answer.status >= 200 && answer.status < 300 ? unexpected(answer, "status") : errorFromAnswer(answer);
  }
  const result = checked(answer.body);
  if (!result.ok) throw unexpected(answer, `field ${result.field} is missing or invalid`);
  return result.value;
}

export function abortedError(signal: AbortSignal): CountersignError {
  return new CountersignError({ code: "aborted", status: 0, message: "the call was aborted", cause: signal.reason });
}

/**
 * A signal that aborts with either, and `release` for when the request is
 * over. Not `AbortSignal.any`: on Node 20 each signal it makes stays
 * referenced by its inputs, so an agent passing one long-lived signal to
 * thousands of calls would keep every one of them.
 */
function eitherSignal(timeout: AbortSignal, caller: AbortSignal | undefined): { signal: AbortSignal; release: () => void } {
  if (!caller) return { signal: timeout, release: () => {} };
  const linked = new AbortController();
  const onTimeout = () => linked.abort(timeout.reason);
  const onCaller = () => linked.abort(caller.reason);
  const release = () => {
    timeout.removeEventListener("abort", onTimeout);
    caller.removeEventListener("abort", onCaller);
  };
  if (caller.aborted) onCaller();
  else {
    timeout.addEventListener("abort", onTimeout, { once: true });
    caller.addEventListener("abort", onCaller, { once: true });
  }
  return { signal: linked.signal, release };
}

/**
 * Sends one request (no redirects followed) and parses its JSON body. Throws
 * "timeout", "aborted" or "network-error" when no answer came, and
 * "unexpected-response" for a 2xx whose body is not JSON.
 */
export async function send(
  target: HttpTarget,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  options: CallOptions,
): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? target.timeoutMs);
  const { signal, release } = eitherSignal(timeout, options.signal);
  let response: Response;
  let text: string;
  try {
    response = await target.fetchImpl(`${target.baseUrl}${path}`, {
      method,
      headers: { accept: "application/json", ...headers },
      body: body === undefined ? undefined : new Uint8Array(body),
      signal,
      redirect: "manual",
    });
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (timeout.aborted) {
      throw new CountersignError({ code: "timeout", status: 0, message: `${method} ${path} timed out`, cause: error });
    }
    throw new CountersignError({
      code: "network-error",
      status: 0,
      message: `${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  } finally {
    release();
  }
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  const answer = { status: response.status, headers: response.headers, body: parsed };
  if (parsed === undefined && response.status >= 200 && response.status < 300) {
    throw unexpected(answer, "the body is not JSON");
  }
  return answer;
}
