-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "quorum_unreachable" BOOLEAN NOT NULL DEFAULT false;
