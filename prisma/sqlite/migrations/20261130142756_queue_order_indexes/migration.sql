-- DropIndex
DROP INDEX "approvals_status_expires_at_idx";

-- CreateIndex
CREATE INDEX "approvals_status_expires_at_id_idx" ON "approvals"("status", "expires_at", "id");

-- CreateIndex
CREATE INDEX "approvals_status_decided_at_id_idx" ON "approvals"("status", "decided_at", "id");
