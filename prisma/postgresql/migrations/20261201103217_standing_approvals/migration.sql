-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "standing_approval_id" TEXT;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "standing_max_ttl" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "standing_approvals" (
    "id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "pins" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "source_approval_id" TEXT NOT NULL,
    "requested_by" TEXT,
    "requester_key" TEXT,
    "policy_name" TEXT NOT NULL,
    "required_roles" TEXT NOT NULL,
    "quorum" INTEGER NOT NULL,
    "proposed_by_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'proposed',
    "approve_count" INTEGER NOT NULL DEFAULT 0,
    "approved_by" TEXT NOT NULL DEFAULT '[]',
    "max_uses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "last_used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "activated_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),
    "revoked_by" TEXT,

    CONSTRAINT "standing_approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "standing_votes" (
    "id" TEXT NOT NULL,
    "standing_id" TEXT NOT NULL,
    "reviewer_id" TEXT NOT NULL,
    "reviewer_email" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "standing_votes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "standing_approvals_service_id_tool_status_idx" ON "standing_approvals"("service_id", "tool", "status");

-- CreateIndex
CREATE INDEX "standing_approvals_status_created_at_idx" ON "standing_approvals"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "standing_votes_standing_id_reviewer_id_key" ON "standing_votes"("standing_id", "reviewer_id");

-- CreateIndex
CREATE INDEX "approvals_standing_approval_id_created_at_idx" ON "approvals"("standing_approval_id", "created_at");

-- AddForeignKey
ALTER TABLE "standing_votes" ADD CONSTRAINT "standing_votes_standing_id_fkey" FOREIGN KEY ("standing_id") REFERENCES "standing_approvals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
