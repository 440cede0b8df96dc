-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "args_salt" TEXT;
ALTER TABLE "approvals" ADD COLUMN "requester_key" TEXT;

-- CreateTable
CREATE TABLE "refusal_tallies" (
    "minute" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("minute", "kind", "subject", "reason")
);

-- CreateIndex
CREATE INDEX "approvals_requester_key_status_idx" ON "approvals"("requester_key", "status");
