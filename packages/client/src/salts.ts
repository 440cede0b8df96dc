/**
 * The args salt (docs/security.md) a client sent per (run_id, call_id): a retry must send
 * the same salt to be a replay, and a consume binds to the digest made with it.
 */
import { isArgsSalt, newArgsSalt } from "./args-digest.js";

/** Calls whose salt a client remembers; the oldest is forgotten past this. */
const REMEMBERED_SALTS = 10_000;

type CallId = { run_id: string; call_id: string };

function callKey(call: CallId): string {
  return JSON.stringify([call.run_id, call.call_id]);
}

export class SaltMemory {
  private readonly salts = new Map<string, string>();

  /**
   * The salt to send for a request: the one given, else the one sent before for
   * the same call, else a fresh one.
   * @throws RangeError when the given salt is malformed.
   */
  saltForRequest(call: CallId & { args_salt?: string }): string {
    if (call.args_salt !== undefined && !isArgsSalt(call.args_salt)) {
      throw new RangeError("args_salt must be 16-64 bytes as unpadded base64url");
    }
    return call.args_salt ?? this.salts.get(callKey(call)) ?? newArgsSalt();
  }

  /** The salt to compute a consume digest with: the one given, else the one sent, else none (unsalted). */
  saltForConsume(call: CallId & { args_salt?: string }): string | undefined {
    return call.args_salt ?? this.salts.get(callKey(call));
  }

  remember(call: CallId, salt: string): void {
    const key = callKey(call);
    this.salts.delete(key);
    this.salts.set(key, salt);
    if (this.salts.size > REMEMBERED_SALTS) this.salts.delete(this.salts.keys().next().value as string);
  }
}
