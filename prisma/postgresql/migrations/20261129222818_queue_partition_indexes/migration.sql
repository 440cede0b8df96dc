-- DropIndex
DROP INDEX "reviews_reviewer_id_idx";

-- CreateIndex
CREATE INDEX "approvals_status_required_roles_created_at_id_expires_at_idx" ON "approvals"("status", "required_roles", "created_at", "id", "expires_at");

-- CreateIndex
CREATE INDEX "reviews_reviewer_id_created_at_idx" ON "reviews"("reviewer_id", "created_at");

-- CreateIndex (by hand: Prisma's schema language has no expression indexes, and
-- `prisma migrate diff` ignores this one, so it causes no drift). The queue finds
-- a reviewer's own requests with exactly this expression (lib/approvals/find-queue.ts).
CREATE INDEX "approvals_requester_lower_status_idx" ON "approvals"(LOWER(TRIM("requested_by")), "status");
