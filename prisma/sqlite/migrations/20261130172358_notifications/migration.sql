-- CreateTable
CREATE TABLE "notification_triggers" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approval_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "due_at" DATETIME NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" DATETIME,
    CONSTRAINT "notification_triggers_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "notifications" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "dedupe_key" TEXT NOT NULL,
    "approval_id" TEXT,
    "user_id" TEXT,
    "channel" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "outcome" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL,
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" DATETIME,
    CONSTRAINT "notifications_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "notification_triggers_status_due_at_idx" ON "notification_triggers"("status", "due_at");

-- CreateIndex
CREATE UNIQUE INDEX "notification_triggers_approval_id_kind_seq_key" ON "notification_triggers"("approval_id", "kind", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "notifications_dedupe_key_key" ON "notifications"("dedupe_key");

-- CreateIndex
CREATE INDEX "notifications_status_next_attempt_at_idx" ON "notifications"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "notifications_created_at_idx" ON "notifications"("created_at");
