// The OpenAPI 3.1 description of docs/api.md, generated from the same zod
// schemas the routes validate with, so the two cannot drift.
import { z } from "zod";
import {
  approvalCreatedSchema,
  approvalRequestedSchema,
  approvalStateSchema,
  consumeRequestSchema,
  consumeResultSchema,
  errorBodySchema,
  EXECUTION_STATUSES,
  executionRecordedSchema,
  executionReportSchema,
  reviewsSchema,
} from "../approvals/schemas";
import { ERROR_STATUS, type ErrorCode } from "../errors";

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });

const error = (description: string, ...codes: ErrorCode[]) => ({
  description: `${description} (${codes.map((c) => `"${c}"`).join(", ")})`,
  content: {
    "application/json": {
      schema: {
        ...schema(errorBodySchema),
        properties: { error: { type: "string", enum: codes }, issues: schema(errorBodySchema).properties?.issues },
      },
    },
  },
});

const json = (description: string, s: z.ZodType) => ({ description, content: { "application/json": { schema: schema(s) } } });

/** GET /api/v1/reviewers/{email}/passkeys (docs/passkeys.md). */
const reviewerPasskeysSchema = z.object({
  reviewer: z.string(),
  passkeys: z.array(
    z.object({
      credential_id: z.string().describe("base64url"),
      public_key: z.string().describe("the COSE public key, base64url"),
      alg: z.number().int().describe("COSE algorithm, e.g. -7 (ES256), -8 (EdDSA)"),
      name: z.string(),
      created_at: z.iso.datetime(),
      removed_at: z.iso.datetime().nullable(),
    }),
  ),
});

const approvalId = { name: "approval_id", in: "path", required: true, schema: { type: "string" } };
const bearer = [{ serviceToken: [] }];

/** The call every callback's data names. */
const callFields = {
  approval_id: z.string(),
  run_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  args_digest: z.string(),
};

const callbackSchema = z.object({
  type: z.literal("approval.decided"),
  timestamp: z.iso.datetime(),
  data: z.object({
    ...callFields,
    decision: z.enum(["approved", "denied", "expired", "cancelled", "revised"]),
    decided_by: z.array(z.string()),
    decided_at: z.iso.datetime(),
    reviews: reviewsSchema,
  }),
});

const executedCallbackSchema = z.object({
  type: z.literal("approval.executed"),
  timestamp: z.iso.datetime(),
  data: z.object({
    ...callFields,
    status: z.enum(EXECUTION_STATUSES),
    result_digest: z.string(),
    finished_at: z.iso.datetime(),
  }),
});

const signatureHeaders = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => ({
  name,
  in: "header",
  required: true,
  schema: { type: "string" },
  description: "Standard Webhooks signature headers (HMAC-SHA256 over `{id}.{timestamp}.{body}`, ±5 min)",
}));

export function buildOpenApi(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: { title: "Countersign API", version: "1", description: "Approval requests, decisions and receipts for AI-agent tool calls." },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { serviceToken: { type: "http", scheme: "bearer", description: "A service's API token" } },
    },
    paths: {
      "/api/v1/webhooks/{service_slug}": {
        post: {
          summary: "A service asks for approval of one tool call",
          parameters: [{ name: "service_slug", in: "path", required: true, schema: { type: "string" } }, ...signatureHeaders],
          requestBody: { required: true, content: { "application/json": { schema: schema(approvalRequestedSchema) } } },
          responses: {
            "201": json("New request", approvalCreatedSchema),
            "200": json("Repeat of an earlier delivery: the first answer", approvalCreatedSchema),
            "401": error("Signature, timestamp or service not accepted", "invalid-signature"),
            "409": error("Same call id with another tool or digest, or a second revision of one proposal", "call-reused", "already-revised"),
            "413": error("Body over 256 KiB", "too-large"),
            "422": error("Body not valid, or digest differs", "invalid-request", "digest-mismatch"),
            "429": error("Over the service's rate limit (see Retry-After)", "rate-limited"),
          },
        },
      },
      "/api/v1/approvals/{approval_id}": {
        get: {
          summary: "The request's state; long-polls with wait",
          security: bearer,
          parameters: [approvalId, { name: "wait", in: "query", required: false, schema: { type: "integer", minimum: 0, maximum: 30 } }],
          responses: {
            "200": json("State", approvalStateSchema),
            "401": error("Missing or wrong token", "unauthorized"),
            "404": error("Unknown, or another service's", "not-found"),
            "422": error("Bad query", "invalid-request"),
          },
        },
      },
      "/api/v1/approvals/{approval_id}/consume": {
        post: {
          summary: "Take the decision, exactly once",
          security: bearer,
          parameters: [approvalId],
          requestBody: { required: true, content: { "application/json": { schema: schema(consumeRequestSchema) } } },
          responses: {
            "200": json("Consumed, with a signed receipt", consumeResultSchema),
            "401": error("Missing or wrong token", "unauthorized"),
            "404": error("Unknown, or another service's", "not-found"),
            "409": error("Not consumable", "already-consumed", "binding-mismatch", "not-decided"),
            "413": error("Body over 16 KiB", "too-large"),
            "422": error("Bad body", "invalid-request"),
          },
        },
      },
      "/api/v1/approvals/{approval_id}/cancel": {
        post: {
          summary: "Withdraw a pending request",
          security: bearer,
          parameters: [approvalId],
          responses: {
            "200": json("Cancelled", z.object({ approval_id: z.string(), status: z.literal("cancelled"), cancelled_at: z.iso.datetime() })),
            "401": error("Missing or wrong token", "unauthorized"),
            "404": error("Unknown, or another service's", "not-found"),
            "409": error("Already decided", "already-decided"),
          },
        },
      },
      "/api/v1/approvals/{approval_id}/result": {
        post: {
          summary: "Report how an approved call ran, once, after a consume that returned approved",
          description:
            "finished_at may be at most 5 minutes ahead of the server's clock and at most 5 minutes before the consume. " +
            "Recorded in the audit chain (approval.executed), shown on the request's page, sent to the callback URL.",
          security: bearer,
          parameters: [approvalId],
          requestBody: { required: true, content: { "application/json": { schema: schema(executionReportSchema) } } },
          responses: {
            "200": json("Recorded", executionRecordedSchema),
            "401": error("Missing or wrong token", "unauthorized"),
            "404": error("Unknown, or another service's", "not-found"),
            "409": error("Reported before, or not consumed as approved", "already-reported", "not-consumed"),
            "413": error("Body over 16 KiB", "too-large"),
            "422": error("Bad body, or finished_at in the future or before the consume", "invalid-request"),
          },
        },
      },
      "/api/v1/reviewers/{email}/passkeys": {
        get: {
          summary: "A reviewer's passkeys, to check a receipt's assertions offline (docs/passkeys.md)",
          description:
            "Any service's API token, or an admin's console session. Removed passkeys are listed too (removed_at set): votes they signed still verify.",
          security: bearer,
          parameters: [{ name: "email", in: "path", required: true, schema: { type: "string", format: "email" } }],
          responses: {
            "200": json("The reviewer's passkeys, oldest first", reviewerPasskeysSchema),
            "401": error("Missing or wrong token (or no session)", "unauthorized"),
            "403": error("A session without the admin role", "forbidden"),
            "404": error("No user with this email", "not-found"),
            "422": error("Not an email address", "invalid-request"),
          },
        },
      },
      "/.well-known/jwks.json": {
        get: { summary: "Public keys that verify receipts (current and previous)", responses: { "200": { description: "JWKS" } } },
      },
    },
    webhooks: {
      "approval.decided": {
        post: {
          summary: "Countersign tells the service (signed with the service's callback secret)",
          parameters: signatureHeaders,
          requestBody: { required: true, content: { "application/json": { schema: schema(callbackSchema) } } },
          responses: { "2XX": { description: "Delivered; anything else is retried with back-off for over 24 hours" } },
        },
      },
      "approval.executed": {
        post: {
          summary: "The executor reported how an approved call ran (signed with the service's callback secret)",
          parameters: signatureHeaders,
          requestBody: { required: true, content: { "application/json": { schema: schema(executedCallbackSchema) } } },
          responses: { "2XX": { description: "Delivered; anything else is retried with back-off for over 24 hours" } },
        },
      },
    },
  } as const;
}

/** The contract's error codes (one list, shared with the client); the test checks each is described. */
export { CONTRACT_ERROR_CODES } from "@countersign/client";

export { ERROR_STATUS };
