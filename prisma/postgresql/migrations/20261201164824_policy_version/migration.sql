-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "policy_version" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;
