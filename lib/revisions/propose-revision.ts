// A reviewer answers a request with changes instead of a vote
// (docs/revisions.md). Every rule a vote must pass applies (the same lock and
// checks as recordReview); the patch must pass checkPatch. The request then
// ends "revised", decided by the proposer, and never runs as it was: the
// executor consumes the patch and asks again with data.revises.
import "server-only";
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { z } from "zod";
import type { JsonPatch } from "@countersign/client";
import { direct } from "../db/sql";
import { inTransaction, type Unit } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import { AppError, issuesOf } from "../errors";
import { emitLocalChange } from "../approvals/changes";
import { finalizeApproval } from "../approvals/finalize";
import { loadRedactor } from "../redaction-rules/manage-rules";
import type { Redactor } from "../redaction";
import { lockForReviewer, reasonTextSchema } from "../reviews/record-review";
import { parseHidden } from "./hidden-values";
import { checkPatch, patchSchema } from "./patch";

export const proposalInputSchema = z.object({
  approvalId: z.string().min(1).max(100),
  patch: patchSchema,
  reason: reasonTextSchema.min(1, "say why you propose these changes"),
});

export type ProposalInput = z.input<typeof proposalInputSchema>;

export const patchDigest = (patch: unknown) => "sha256:" + createHash("sha256").update(canonicalize(patch)!).digest("hex");

function invalid(error: z.ZodError): AppError {
  const reasonMissing = error.issues.some((i) => i.path[0] === "reason" && i.code === "too_small");
  if (reasonMissing) return new AppError("reason-required", "say why you propose these changes");
  const first = error.issues[0];
  const where = first?.path.length ? `${first.path.join(".")}: ` : "";
  return new AppError("invalid-request", `${where}${first?.message ?? "invalid changes"}`, { issues: issuesOf(error) });
}

/** The request locked and every review rule checked, and the patch checked against its redacted view. */
async function lockAndCheck(tx: Unit, reviewerId: string, approvalId: string, patch: JsonPatch, redactor: Redactor) {
  const locked = await lockForReviewer(tx, reviewerId, approvalId);
  const hidden = parseHidden(locked.approval.redactedDigests);
  if (!hidden) throw new AppError("invalid-request", "this request arrived before changes could be proposed: approve or deny it");
  const check = checkPatch(JSON.parse(locked.approval.redactedArgs), hidden, patch, redactor);
  if (!check.ok) throw new AppError("invalid-request", check.message, { issues: [{ path: "patch", message: check.message }] });
  return { ...locked, result: check.result };
}

/** The arguments as they would read with these changes, checked as a proposal would be; nothing is written. */
export async function previewRevision(reviewerId: string, input: { approvalId: string; patch: unknown }): Promise<unknown> {
  const parsed = proposalInputSchema.pick({ approvalId: true, patch: true }).safeParse(input);
  if (!parsed.success) throw invalid(parsed.error);
  const redactor = await loadRedactor(direct());
  return inTransaction(async (tx) => (await lockAndCheck(tx, reviewerId, parsed.data.approvalId, parsed.data.patch, redactor)).result);
}

export async function proposeRevision(reviewerId: string, input: ProposalInput): Promise<{ approvalId: string; status: "revised" }> {
  const parsed = proposalInputSchema.safeParse(input);
  if (!parsed.success) throw invalid(parsed.error);
  const { approvalId, patch, reason } = parsed.data;
  const redactor = await loadRedactor(direct());

  await inTransaction(async (tx) => {
    const { reviewer, now } = await lockAndCheck(tx, reviewerId, approvalId, patch, redactor);

    const actor = `user:${reviewer.email}` as const;
    await tx.approval.update({ where: { id: approvalId }, data: { patch: JSON.stringify(patch), patchReason: reason, proposedById: reviewer.id } });
    // The patch's values are the reviewer's own, but they are argument values: the chain keeps their digest.
    recordAudit({
      type: "revision.proposed",
      actor,
      approvalId,
      data: { reviewer: reviewer.email, reason, patch_digest: patchDigest(patch), operations: patch.length },
    });
    const decided = await finalizeApproval(tx, approvalId, "revised", { decidedBy: [reviewer.email], decidedAt: now, actor, reason });
    if (!decided) throw new Error("request left pending state under lock");
  });
  emitLocalChange(approvalId);
  return { approvalId, status: "revised" };
}
