-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "execution_status" TEXT;
ALTER TABLE "approvals" ADD COLUMN "finished_at" DATETIME;
ALTER TABLE "approvals" ADD COLUMN "reported_at" DATETIME;
ALTER TABLE "approvals" ADD COLUMN "result_digest" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_callback_deliveries" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approval_id" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'approval.decided',
    "service_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" DATETIME NOT NULL,
    "lease_owner" TEXT,
    "lease_until" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" DATETIME,
    CONSTRAINT "callback_deliveries_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "callback_deliveries_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_callback_deliveries" ("approval_id", "attempts", "created_at", "delivered_at", "id", "lease_owner", "lease_until", "message_id", "next_attempt_at", "payload", "service_id", "status") SELECT "approval_id", "attempts", "created_at", "delivered_at", "id", "lease_owner", "lease_until", "message_id", "next_attempt_at", "payload", "service_id", "status" FROM "callback_deliveries";
DROP TABLE "callback_deliveries";
ALTER TABLE "new_callback_deliveries" RENAME TO "callback_deliveries";
CREATE INDEX "callback_deliveries_status_next_attempt_at_idx" ON "callback_deliveries"("status", "next_attempt_at");
CREATE INDEX "callback_deliveries_service_id_created_at_idx" ON "callback_deliveries"("service_id", "created_at");
CREATE UNIQUE INDEX "callback_deliveries_approval_id_type_key" ON "callback_deliveries"("approval_id", "type");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
