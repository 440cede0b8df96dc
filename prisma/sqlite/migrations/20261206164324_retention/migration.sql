-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "args_purged_at" DATETIME;

-- CreateTable
CREATE TABLE "audit_archives" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "head_hash" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "before" DATETIME NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_archives_first_seq_key" ON "audit_archives"("first_seq");

-- CreateIndex
CREATE UNIQUE INDEX "audit_archives_last_seq_key" ON "audit_archives"("last_seq");
