/**
 * The executor-side Countersign client (docs/api.md): node built-ins, global
 * fetch, jose, and the digest / webhook modules only — no server code.
 */
import { argsDigest } from "./args-digest.js";
import { CountersignError } from "./errors.js";
import { generateWebhookId } from "./standard-webhooks.js";
import { accept, send, type HttpTarget } from "./http.js";
import type {
  ApprovalRequestInput,
  CallOptions,
  ConsumeBindingInput,
  CountersignClientOptions,
  GetApprovalOptions,
  RequestApprovalOptions,
  RequestedApproval,
  WaitForDecisionOptions,
} from "./options.js";
import { verifyReceipt, type JwksSource, type VerifyReceiptOptions } from "./receipt.js";
import { SaltMemory } from "./salts.js";
import { checkApprovalCreated, checkApprovalStateWithExecution, checkCancelResult, checkConsumeResult, checkExecutionRecorded } from "./shape.js";
import type { ApprovalState, CancelResult, ConsumeBinding, ConsumeResult, ExecutionRecorded, ExecutionReport, ReceiptPayload } from "./types.js";
import { MAX_WAIT_SECONDS, pollUntilDecided } from "./waiting.js";
import { signedApprovalRequest } from "./webhook-request.js";

const DEFAULT_TIMEOUT_MS = 15_000;

export class CountersignClient {
  readonly baseUrl: string;
  readonly serviceSlug: string;
  private readonly webhookSecrets: readonly string[];
  private readonly apiToken: string;
  private readonly http: HttpTarget;
  /** Salt per (run_id, call_id) this client has sent: a retry and a consume reuse it. */
  private readonly salts = new SaltMemory();

  constructor(options: CountersignClientOptions) {
    const base = new URL(options.baseUrl); // throws on a malformed URL
    this.baseUrl = base.href.replace(/\/+$/, "");
    this.serviceSlug = options.serviceSlug;
    this.webhookSecrets = typeof options.webhookSecret === "string" ? [options.webhookSecret] : [...options.webhookSecret];
    this.apiToken = options.apiToken;
    this.http = {
      baseUrl: this.baseUrl,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      fetchImpl: options.fetch ?? globalThis.fetch.bind(globalThis),
    };
  }

  /**
   * A client configured from the environment: COUNTERSIGN_URL, COUNTERSIGN_SLUG,
   * COUNTERSIGN_WEBHOOK_SECRET and COUNTERSIGN_API_TOKEN (the names the admin
   * CLI's `service add` output maps to).
   * @throws Error naming every variable that is missing (never their values).
   */
  static fromEnv(env: Record<string, string | undefined> = process.env): CountersignClient {
    const names = ["COUNTERSIGN_URL", "COUNTERSIGN_SLUG", "COUNTERSIGN_WEBHOOK_SECRET", "COUNTERSIGN_API_TOKEN"] as const;
    const missing = names.filter((name) => !env[name]);
    if (missing.length) throw new Error(`Countersign client: set ${missing.join(", ")}`);
    return new CountersignClient({
      baseUrl: env.COUNTERSIGN_URL!,
      serviceSlug: env.COUNTERSIGN_SLUG!,
      webhookSecret: env.COUNTERSIGN_WEBHOOK_SECRET!,
      apiToken: env.COUNTERSIGN_API_TOKEN!,
    });
  }

  /** The JWKS URL of this Countersign (`/.well-known/jwks.json`). */
  get jwksUrl(): string {
    return `${this.baseUrl}/.well-known/jwks.json`;
  }

  /**
   * Sends an `approval.requested` webhook (docs/api.md), signed with the webhook secret,
   * with a salted args_digest (docs/security.md). Returns the 201 body of a new request, or
   * the 200 body of a replay, plus the `args_salt` that was sent.
   *
   * @throws CanonicalJsonError when the arguments have no RFC 8785 form.
   * @throws CountersignError "too-large" (status 0, before sending) when the body
   *   exceeds 256 KiB; otherwise the contract's code of the answer.
   */
  async requestApproval(input: ApprovalRequestInput, options: RequestApprovalOptions = {}): Promise<RequestedApproval> {
    const salt = this.salts.saltForRequest(input);
    const path = `/api/v1/webhooks/${encodeURIComponent(this.serviceSlug)}`;
    const webhookId = options.webhookId ?? generateWebhookId();
    // Remembered before sending: a retry after a lost answer must send the same salt.
    this.salts.remember(input, salt);
    const attempt = () => {
      const { body, headers } = signedApprovalRequest(input, salt, this.webhookSecrets, webhookId);
      return send(this.http, "POST", path, headers, body, options);
    };
    let answer;
    try {
      answer = await attempt();
    } catch (error) {
      // A connection that failed before any answer (often a kept-alive socket the server had
      // just closed) is retried once: the same webhook-id makes a delivered first try harmless.
      if (!(error instanceof CountersignError && error.code === "network-error") || options.signal?.aborted) throw error;
      answer = await attempt();
    }
    return { ...accept(answer, [200, 201], checkApprovalCreated), args_salt: salt };
  }

  /** `GET /api/v1/approvals/{id}[?wait=N]` (docs/api.md). */
  async getApproval(approvalId: string, options: GetApprovalOptions = {}): Promise<ApprovalState> {
    const wait = options.wait ?? 0;
    if (!Number.isInteger(wait) || wait < 0 || wait > MAX_WAIT_SECONDS) {
      throw new RangeError(`wait must be an integer from 0 to ${MAX_WAIT_SECONDS}`);
    }
    const query = wait > 0 ? `?wait=${wait}` : "";
    const answer = await send(this.http, "GET", `/api/v1/approvals/${encodeURIComponent(approvalId)}${query}`, this.authHeaders(), undefined, {
      signal: options.signal,
      timeoutMs: (options.timeoutMs ?? this.http.timeoutMs) + wait * 1000,
    });
    return accept(answer, [200], checkApprovalStateWithExecution);
  }

  /**
   * Long-polls (wait ≤ 30 s per call) until the request leaves `pending` or
   * `timeoutMs` runs out, and returns the last state seen — check `status`, it
   * may still be "pending". Network errors, timeouts, 5xx and 429 answers are
   * retried with back-off within the time budget; other errors are thrown.
   */
  waitForDecision(approvalId: string, options: WaitForDecisionOptions): Promise<ApprovalState> {
    return pollUntilDecided((wait, signal) => this.getApproval(approvalId, { wait, signal }), options);
  }

  /**
   * `POST /api/v1/approvals/{id}/consume` (docs/api.md): takes the decision, once. Pass
   * `arguments` instead of `args_digest` to bind to the arguments about to run.
   * The answer's `reviews` are the votes in order; on a denial,
   * `denialReason(answer)` is the reviewer's reason, to tell the user.
   */
  async consume(approvalId: string, binding: ConsumeBindingInput, options: CallOptions = {}): Promise<ConsumeResult> {
    const body: ConsumeBinding = {
      run_id: binding.run_id,
      call_id: binding.call_id,
      tool: binding.tool,
      args_digest: "args_digest" in binding ? binding.args_digest : argsDigest(binding.arguments, this.salts.saltForConsume(binding)),
    };
    const answer = await send(
      this.http,
      "POST",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}/consume`,
      { ...this.authHeaders(), "content-type": "application/json" },
      Buffer.from(JSON.stringify(body), "utf8"),
      options,
    );
    return accept(answer, [200], checkConsumeResult);
  }

  /** `POST /api/v1/approvals/{id}/cancel` (docs/api.md): withdraws a pending request. */
  async cancel(approvalId: string, options: CallOptions = {}): Promise<CancelResult> {
    const answer = await send(
      this.http,
      "POST",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}/cancel`,
      this.authHeaders(),
      undefined,
      options,
    );
    const result = accept(answer, [200], checkCancelResult);
    return { ...result, approval_id: typeof result.approval_id === "string" ? result.approval_id : approvalId };
  }

  /**
   * `POST /api/v1/approvals/{id}/result` (docs/api.md): reports how an approved call ran,
   * once, after a consume that answered `approved`. Only `status`, `result_digest`
   * (a digest, never the result: see `resultDigest`) and `finished_at` are sent.
   * `ApprovalPort.reportExecution` and `ApprovalPort.run` compute the digest and send this for you.
   *
   * @throws CountersignError "already-reported" (409) for a second report, "not-consumed" (409)
   *   when no consume answered `approved` (nothing ran), "not-found", "invalid-request" (422, e.g.
   *   `finished_at` in the future or before the consume), or the transport's codes.
   */
  async reportExecution(approvalId: string, report: ExecutionReport, options: CallOptions = {}): Promise<ExecutionRecorded> {
    const body: ExecutionReport = { status: report.status, result_digest: report.result_digest, finished_at: report.finished_at };
    const answer = await send(
      this.http,
      "POST",
      `/api/v1/approvals/${encodeURIComponent(approvalId)}/result`,
      { ...this.authHeaders(), "content-type": "application/json" },
      Buffer.from(JSON.stringify(body), "utf8"),
      options,
    );
    return accept(answer, [200], checkExecutionRecorded);
  }

  /** Verifies a receipt against this Countersign's JWKS (or the one given). */
  verifyReceipt(jws: string, jwksUrlOrJwks: JwksSource = this.jwksUrl, options?: VerifyReceiptOptions): Promise<ReceiptPayload> {
    return verifyReceipt(jws, jwksUrlOrJwks, options);
  }

  private authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.apiToken}` };
  }
}
