-- Columns added in place (ALTER TABLE), not the tables rebuilt: a rebuild of
-- approvals would also drop the expression index of migration 20261129222818.
ALTER TABLE "approvals" ADD COLUMN "remind_at" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "approvals" ADD COLUMN "escalate_after_seconds" INTEGER;
ALTER TABLE "approvals" ADD COLUMN "escalate_to_roles" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "approvals" ADD COLUMN "escalated_at" DATETIME;
ALTER TABLE "policies" ADD COLUMN "remind_at" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "policies" ADD COLUMN "escalate_after_seconds" INTEGER;
ALTER TABLE "policies" ADD COLUMN "escalate_to_roles" TEXT NOT NULL DEFAULT '[]';
