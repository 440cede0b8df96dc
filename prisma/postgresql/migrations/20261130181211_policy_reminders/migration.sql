-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "escalate_after_seconds" INTEGER,
ADD COLUMN     "escalate_to_roles" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "escalated_at" TIMESTAMP(3),
ADD COLUMN     "remind_at" TEXT NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "escalate_after_seconds" INTEGER,
ADD COLUMN     "escalate_to_roles" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "remind_at" TEXT NOT NULL DEFAULT '[]';
