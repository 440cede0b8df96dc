/** The options and inputs of the client's public calls (docs/api.md). */
import type { ApprovalCreated, ApprovalRequestData, ConsumeBinding } from "./types.js";

export interface CountersignClientOptions {
  /** Countersign's base URL, e.g. "https://countersign.example.com" (a path prefix is kept). */
  baseUrl: string;
  /** This service's slug (docs/api.md path). */
  serviceSlug: string;
  /** The service's webhook secret, `whsec_…`; several sign with one entry each (rotation). */
  webhookSecret: string | readonly string[];
  /** The service's API token for docs/api.md */
  apiToken: string;
  /** Per-call timeout in ms (default 15 000); a long poll adds its `wait`. */
  timeoutMs?: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Overrides the client's per-call timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * What an executor supplies to ask for approval; `args_digest` is computed.
 * `args_salt` is normally left out: the client makes a fresh one per call (and
 * reuses it when the same client asks again for the same run and call). Give
 * it only to resend a call from another process with the salt it was sent with.
 */
export type ApprovalRequestInput = Omit<ApprovalRequestData, "args_digest">;

/** The answer to requestApproval, with the salt the digest was made with (keep it to consume elsewhere). */
export type RequestedApproval = ApprovalCreated & { args_salt: string };

export interface RequestApprovalOptions extends CallOptions {
  /** webhook-id; reuse it when retrying the same request. Defaults to a random id. */
  webhookId?: string;
}

export interface GetApprovalOptions extends CallOptions {
  /** Long-poll for up to this many seconds (integer 0–30) while the request is pending. */
  wait?: number;
}

export interface WaitForDecisionOptions {
  /** Total time to wait; when it runs out the last (pending) state is returned. */
  timeoutMs: number;
  /** Seconds per long poll (1–30, default 30). */
  pollWaitSeconds?: number;
  signal?: AbortSignal;
}

/**
 * The consume binding, or the same with the arguments from which args_digest
 * is computed: salted with `args_salt` when given, else with the salt this
 * client sent for the same run and call, else unsalted (docs/api.md).
 */
export type ConsumeBindingInput = ConsumeBinding | (Omit<ConsumeBinding, "args_digest"> & { arguments: Record<string, unknown>; args_salt?: string });
