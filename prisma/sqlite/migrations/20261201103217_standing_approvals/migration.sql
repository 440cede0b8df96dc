-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "standing_approval_id" TEXT;

-- CreateTable
CREATE TABLE "standing_approvals" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "last_used_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "activated_at" DATETIME,
    "revoked_at" DATETIME,
    "revoked_by" TEXT
);

-- CreateTable
CREATE TABLE "standing_votes" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "standing_id" TEXT NOT NULL,
    "reviewer_id" TEXT NOT NULL,
    "reviewer_email" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "standing_votes_standing_id_fkey" FOREIGN KEY ("standing_id") REFERENCES "standing_approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_policies" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "service_slug" TEXT,
    "tool_pattern" TEXT NOT NULL,
    "effects" TEXT,
    "roles" TEXT NOT NULL,
    "quorum" INTEGER NOT NULL,
    "ttl_seconds" INTEGER NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 100,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    "remind_at" TEXT NOT NULL DEFAULT '[]',
    "escalate_after_seconds" INTEGER,
    "escalate_to_roles" TEXT NOT NULL DEFAULT '[]',
    "slack_channel" TEXT,
    "standing_max_ttl" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_policies" ("created_at", "effects", "escalate_after_seconds", "escalate_to_roles", "id", "is_default", "name", "priority", "quorum", "remind_at", "roles", "service_slug", "slack_channel", "tool_pattern", "ttl_seconds", "updated_at") SELECT "created_at", "effects", "escalate_after_seconds", "escalate_to_roles", "id", "is_default", "name", "priority", "quorum", "remind_at", "roles", "service_slug", "slack_channel", "tool_pattern", "ttl_seconds", "updated_at" FROM "policies";
DROP TABLE "policies";
ALTER TABLE "new_policies" RENAME TO "policies";
CREATE UNIQUE INDEX "policies_name_key" ON "policies"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "standing_approvals_service_id_tool_status_idx" ON "standing_approvals"("service_id", "tool", "status");

-- CreateIndex
CREATE INDEX "standing_approvals_status_created_at_idx" ON "standing_approvals"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "standing_votes_standing_id_reviewer_id_key" ON "standing_votes"("standing_id", "reviewer_id");

-- CreateIndex
CREATE INDEX "approvals_standing_approval_id_created_at_idx" ON "approvals"("standing_approval_id", "created_at");
