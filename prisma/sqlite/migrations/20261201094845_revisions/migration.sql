-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "patch" TEXT;
ALTER TABLE "approvals" ADD COLUMN "patch_reason" TEXT;
ALTER TABLE "approvals" ADD COLUMN "proposed_by_id" TEXT;
ALTER TABLE "approvals" ADD COLUMN "redacted_digests" TEXT;
ALTER TABLE "approvals" ADD COLUMN "revises_id" TEXT;
ALTER TABLE "approvals" ADD COLUMN "revision_differs" TEXT;
ALTER TABLE "approvals" ADD COLUMN "revision_match" BOOLEAN;

-- CreateIndex
CREATE UNIQUE INDEX "approvals_revises_id_key" ON "approvals"("revises_id");
