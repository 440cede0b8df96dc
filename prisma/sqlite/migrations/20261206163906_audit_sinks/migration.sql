-- CreateTable
CREATE TABLE "audit_sinks" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "sent_seq" INTEGER NOT NULL DEFAULT 0,
    "last_sent_at" DATETIME,
    "last_error_class" TEXT,
    "last_error_at" DATETIME,
    "holder" TEXT,
    "lease_until" DATETIME
);
