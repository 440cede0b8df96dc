/**
 * Countersign client for agent services (executors). Pure: node built-ins,
 * global fetch and jose; safe to import outside the Countersign server.
 */
export { CountersignClient } from "./client.js";
export { parseRetryAfter } from "./http.js";
export {
  type ApprovalRequestInput,
  type CallOptions,
  type ConsumeBindingInput,
  type CountersignClientOptions,
  type GetApprovalOptions,
  type RequestApprovalOptions,
  type RequestedApproval,
  type WaitForDecisionOptions,
} from "./options.js";
export { MAX_WAIT_SECONDS } from "./waiting.js";
export { MAX_WEBHOOK_BODY_BYTES } from "./webhook-request.js";
export {
  CONTRACT_ERROR_CODES,
  CountersignError,
  isContractErrorCode,
  isCountersignError,
  type ClientErrorCode,
  type ContractErrorCode,
  type CountersignErrorCode,
  type CountersignErrorInit,
} from "./errors.js";
export { decodeReceiptUnverified, verifyReceipt, type JwksSource, type ReceiptExpectation, type VerifyReceiptOptions } from "./receipt.js";
export { verifyCallback, verifyReviewNotice, type CallbackHeaders, type VerifyCallbackInput } from "./callback.js";
export { denialReason } from "./reviews.js";
export type * from "./types.js";
export { APPROVAL_WARNINGS } from "./types.js";
// Digest and Standard Webhooks signing: the one implementation, shared with the server.
export * from "./args-digest.js";
export * from "./standard-webhooks.js";
export {
  ApprovalPort,
  type ApprovalPortOptions,
  type AskOptions,
  type PortCall,
  type PortDecision,
  type PortDecisionCode,
  type PortRevision,
  type ApprovedPortDecision,
  type DeniedPortDecision,
  type ExecutionOutcome,
  type PortRun,
  type ReportContext,
} from "./approval-port.js";
export { errorClassName, resultDigest } from "./result-digest.js";
export { revisionCallId } from "./revision-call-id.js";
export { approvalDenied, isApprovalDenied, type ApprovalDenied } from "./tool-denial.js";
export {
  applyJsonPatch,
  formatJsonPointer,
  getJsonPointer,
  isJsonPatchError,
  JsonPatchError,
  parseJsonPointer,
  type JsonPatch,
  type JsonPatchHooks,
  type JsonPatchOperation,
} from "./json-patch.js";
export {
  COSE_ALGORITHMS,
  coseKeyToJwk,
  verifyAssertion,
  verifyReceiptAssertions,
  voteChallenge,
  type AssertionCheck,
  type PasskeysByReviewer,
  type ReceiptAssertionResult,
  type ReceiptAssertionsCheck,
  type ReviewerPasskey,
  type StoredAssertion,
  type VerifyAssertionOptions,
  type VoteChallengeFields,
} from "./passkeys.js";
