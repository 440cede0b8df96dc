-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "args_purged_at" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "audit_archives" (
    "id" TEXT NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "head_hash" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "file_name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "before" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_archives_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_archives_first_seq_key" ON "audit_archives"("first_seq");

-- CreateIndex
CREATE UNIQUE INDEX "audit_archives_last_seq_key" ON "audit_archives"("last_seq");
