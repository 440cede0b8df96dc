// Wire schemas of docs/api.md The routes validate with these, and the
// OpenAPI description is generated from them, so the two cannot drift.
// The wire types themselves are defined once, in @countersign/client; the
// checks at the end of this file make the build fail if a schema here and
// its type there ever describe different shapes.
// Messages name what is expected, never the submitted value.
import { z } from "zod";
import { EFFECTS } from "../policies/match-policy";
// One longest lifetime for a request, whether a policy or the caller (expires_in) sets it.
import { MAX_TTL_SECONDS } from "../policies/schemas";
import {
  APPROVAL_WARNINGS,
  ARGS_SALT_PATTERN,
  isArgsSalt,
  type ApprovalCreated,
  type ApprovalRequestedEvent,
  type ApprovalState,
  type ApprovalStatus,
  type ConsumeBinding,
  type ConsumeResult,
  type ErrorBody,
  type ExecutionRecord,
  type ExecutionRecorded,
  type ExecutionReport,
  type Review,
} from "@countersign/client";
import { normalizeEmailAddress } from "../identity/requester-key";
import { findSecret } from "../redaction";

/** 1–200 printable characters: no control, format or unpaired surrogate code points. */
export const idSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{C}]+$/u, "must contain only printable characters");

export const toolSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, "must match ^[A-Za-z0-9_.:-]{1,200}$");

export const argsDigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: followed by 64 lower-case hex digits");

/**
 * A JSON object, passed through as parsed. Not z.record: it rebuilds the
 * object and drops an own `__proto__` key, which docs/security.md says is an ordinary key
 * that is shown and digested like any other.
 */
const argumentsSchema = z
  .custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null && !Array.isArray(v), "must be a JSON object")
  .meta({ type: "object", additionalProperties: {} });

/** 16–64 bytes as unpadded base64url (its canonical spelling). */
export const argsSaltSchema = z
  .string()
  .regex(ARGS_SALT_PATTERN, { message: "must be 16-64 bytes as unpadded base64url", abort: true })
  .refine(isArgsSalt, "must be 16-64 bytes as unpadded base64url");

/**
 * ids and the environment go into the audit chain as they are, so a
 * value that any built-in redaction rule would hide is refused (the message
 * names the rule, never the value).
 */
const noSecret = (value: string, ctx: z.RefinementCtx) => {
  const rule = findSecret(value);
  if (rule !== null) ctx.addIssue({ code: "custom", message: `must not contain a secret (it matches the ${rule} redaction rule)` });
};

export const approvalRequestedSchema = z.object({
  type: z.literal("approval.requested"),
  timestamp: z.iso.datetime({ offset: true }).optional(),
  data: z.object({
    run_id: idSchema.superRefine(noSecret),
    call_id: idSchema.superRefine(noSecret),
    tool: toolSchema,
    arguments: argumentsSchema,
    args_digest: argsDigestSchema.optional(),
    args_salt: argsSaltSchema.optional(),
    // An email address after the requester normalization of docs/security.md (lib/identity), so self-review can be matched.
    requested_by: z
      .string()
      .min(1)
      .max(320)
      .regex(/^[^\p{C}]+$/u, "must contain only printable characters")
      .refine((v) => normalizeEmailAddress(v) !== null, "must be an email address")
      .optional(),
    effects: z.enum(EFFECTS).default("write"),
    // Free text (newlines allowed), but no NUL: PostgreSQL text cannot hold it.
    summary: z
      .string()
      .max(2000)
      .regex(/^[^\u0000]*$/, "must not contain NUL characters")
      .optional(),
    environment: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^\p{C}]+$/u, "must contain only printable characters")
      .superRefine(noSecret)
      .optional(),
    expires_in: z.number().int().min(1).max(MAX_TTL_SECONDS).optional(),
    // The revised request whose proposed changes these arguments carry (docs/revisions.md).
    revises: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[^\p{C}]+$/u, "must contain only printable characters")
      .optional(),
  }),
});

export type ApprovalRequested = z.infer<typeof approvalRequestedSchema>;

export const approvalCreatedSchema = z.object({
  approval_id: z.string(),
  status: z.enum(["pending", "approved"]).describe("approved: decided as it arrived (a revision whose proposer's approval met the quorum)"),
  args_digest: argsDigestSchema,
  expires_at: z.iso.datetime(),
  review_url: z.url(),
  warnings: z
    .array(z.enum(APPROVAL_WARNINGS))
    .optional()
    .describe(
      "quorum-unreachable: fewer people could approve it than its quorum needs, so it can only be denied or expire; " +
        "revision-differs: a revision whose arguments are not the original's with the proposed changes applied, so nothing was carried over",
    ),
});
export type { ApprovalCreated, ApprovalStatus };

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired", "cancelled", "revised"] as const satisfies readonly ApprovalStatus[];

/** One reviewer's vote as the owning service sees it; `reason` is the reviewer's own text. */
export const reviewEntrySchema = z.object({
  by: z.string().describe("the reviewer's email"),
  vote: z.enum(["approve", "deny"]),
  reason: z.string().nullable().describe("the reason the reviewer gave, or null"),
  at: z.iso.datetime().describe("when the vote was cast"),
});
export type ReviewEntry = Review;
export const reviewsSchema = z.array(reviewEntrySchema).describe("every vote on the request, in the order cast");

export const EXECUTION_STATUSES = ["succeeded", "failed"] as const;

/**
 * The executor's report of an approved call's run (docs/executions.md).
 * Strict: an unknown field is refused, and the message names the fields
 * allowed, never the one sent. Bounds that depend on the clock and on the
 * consume (not in the future, not before the consume) are checked by
 * lib/executions/report-execution.ts.
 */
export const executionReportSchema = z.strictObject(
  {
    status: z.enum(EXECUTION_STATUSES),
    result_digest: argsDigestSchema.describe("a digest of the result (sha256: and 64 lower-case hex digits), never the result itself"),
    finished_at: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date and time with a time-zone offset" }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? "only status, result_digest and finished_at are allowed"
        : issue.code === "invalid_type"
          ? "must be a JSON object"
          : undefined,
  },
);

/** A recorded report: finished_at in UTC, and when it arrived. */
export const executionRecordSchema = z.object({
  status: z.enum(EXECUTION_STATUSES),
  result_digest: argsDigestSchema,
  finished_at: z.iso.datetime(),
  reported_at: z.iso.datetime(),
});

export const executionRecordedSchema = executionRecordSchema.extend({ approval_id: z.string() });

export const approvalStateSchema = z.object({
  approval_id: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  run_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  args_digest: argsDigestSchema,
  expires_at: z.iso.datetime(),
  decided_at: z.iso.datetime().nullable(),
  decided_by: z.array(z.string()),
  reviews: reviewsSchema,
  consumed: z.boolean(),
  execution: executionRecordSchema
    .nullable()
    .optional()
    .describe("the executor's report of the run (POST …/result), null until it arrived; older servers leave it out"),
  waiting_on: z
    .array(z.object({ role: z.string(), needed: z.number().int().min(0), eligible: z.number().int().min(0) }))
    .optional()
    .describe(
      "who may still decide it, per role that decides it now: approvals still needed, and how many people could give one now; empty once decided; older servers leave it out",
    ),
});

export const consumeRequestSchema = z.object({
  run_id: idSchema,
  call_id: idSchema,
  tool: toolSchema,
  args_digest: argsDigestSchema,
});

/** An RFC 6902 patch as it goes over the wire (lib/revisions/patch.ts checks proposals in full). */
const wirePatchSchema = z
  .array(
    z.union([
      z.object({ op: z.literal("add"), path: z.string(), value: z.unknown() }),
      z.object({ op: z.literal("replace"), path: z.string(), value: z.unknown() }),
      z.object({ op: z.literal("remove"), path: z.string() }),
    ]),
  )
  .describe("RFC 6902 operations on the arguments: apply them to your own arguments and ask again with data.revises");

export const consumeResultSchema = z.object({
  approval_id: z.string(),
  decision: z.enum(["approved", "denied", "expired", "revised"]),
  decided_by: z.array(z.string()),
  decided_at: z.iso.datetime(),
  consumed_at: z.iso.datetime(),
  reviews: reviewsSchema,
  receipt: z.string(),
  patch: wirePatchSchema.optional(),
  proposal: z.object({ by: z.string(), reason: z.string(), at: z.iso.datetime() }).optional().describe("who proposed the changes, why, and when"),
});

export const errorBodySchema = z.object({
  error: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

// ------------------------------------------------- one definition of the wire

/** True only when A and B are the same shape (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Accepts<Schema, Sent> = [Sent] extends [Schema] ? true : false;

// A `false` here is a compile error: the schema and @countersign/client's type differ.
const wireAgreement: [
  Same<z.infer<typeof approvalCreatedSchema>, ApprovalCreated>,
  Same<z.infer<typeof approvalStateSchema>, ApprovalState>,
  Same<z.infer<typeof reviewEntrySchema>, Review>,
  Same<z.infer<typeof consumeRequestSchema>, ConsumeBinding>,
  Same<z.infer<typeof consumeResultSchema>, ConsumeResult>,
  Same<z.infer<typeof errorBodySchema>, ErrorBody>,
  Same<z.infer<typeof executionReportSchema>, ExecutionReport>,
  Same<z.infer<typeof executionRecordSchema>, ExecutionRecord>,
  Same<z.infer<typeof executionRecordedSchema>, ExecutionRecorded>,
  // Everything the client's type lets an executor send, the server accepts (it also takes a missing timestamp).
  Accepts<z.input<typeof approvalRequestedSchema>, ApprovalRequestedEvent>,
] = [true, true, true, true, true, true, true, true, true, true];
void wireAgreement;
