-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "patch" TEXT,
ADD COLUMN     "patch_reason" TEXT,
ADD COLUMN     "proposed_by_id" TEXT,
ADD COLUMN     "redacted_digests" TEXT,
ADD COLUMN     "revises_id" TEXT,
ADD COLUMN     "revision_differs" TEXT,
ADD COLUMN     "revision_match" BOOLEAN;

-- CreateIndex
CREATE UNIQUE INDEX "approvals_revises_id_key" ON "approvals"("revises_id");
