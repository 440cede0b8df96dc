-- DropIndex
DROP INDEX "callback_deliveries_approval_id_key";

-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "execution_status" TEXT,
ADD COLUMN     "finished_at" TIMESTAMP(3),
ADD COLUMN     "reported_at" TIMESTAMP(3),
ADD COLUMN     "result_digest" TEXT;

-- AlterTable
ALTER TABLE "callback_deliveries" ADD COLUMN     "type" TEXT NOT NULL DEFAULT 'approval.decided';

-- CreateIndex
CREATE UNIQUE INDEX "callback_deliveries_approval_id_type_key" ON "callback_deliveries"("approval_id", "type");
