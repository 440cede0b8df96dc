/**
 * Countersign client for agent services (executors). Pure: node built-ins,
 * global fetch and jose; safe to import outside the Countersign server.
 */
export { CountersignClient } from "./client";
export { parseRetryAfter } from "./http";
export {
  type ApprovalRequestInput,
  type CallOptions,
  type ConsumeBindingInput,
  type CountersignClientOptions,
  type GetApprovalOptions,
  type RequestApprovalOptions,
  type RequestedApproval,
  type WaitForDecisionOptions,
} from "./options";
export { MAX_WAIT_SECONDS } from "./waiting";
export { MAX_WEBHOOK_BODY_BYTES } from "./webhook-request";
export {
  CONTRACT_ERROR_CODES,
  CountersignError,
  isContractErrorCode,
  isCountersignError,
  type ClientErrorCode,
  type ContractErrorCode,
  type CountersignErrorCode,
  type CountersignErrorInit,
} from "./errors";
export { decodeReceiptUnverified, verifyReceipt, type JwksSource, type ReceiptExpectation, type VerifyReceiptOptions } from "./receipt";
export { verifyCallback, type CallbackHeaders, type VerifyCallbackInput } from "./callback";
export { denialReason } from "./reviews";
export type * from "./types";
export { argsDigest, canonicalJson, CanonicalJsonError, isArgsSalt, newArgsSalt, type ArgsDigest } from "../digest/args-digest";
export { generateWebhookSecret, signWebhook, verifyWebhook, type WebhookHeaderValues, type WebhookVerifyResult } from "../webhooks/standard-webhooks";
