-- One column added in place (ALTER TABLE), not the table rebuilt: a rebuild
-- would also drop the expression index of migration 20261129222818.
ALTER TABLE "approvals" ADD COLUMN "quorum_unreachable" BOOLEAN NOT NULL DEFAULT false;
