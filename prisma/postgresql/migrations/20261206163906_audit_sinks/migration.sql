-- CreateTable
CREATE TABLE "audit_sinks" (
    "name" TEXT NOT NULL,
    "sent_seq" INTEGER NOT NULL DEFAULT 0,
    "last_sent_at" TIMESTAMP(3),
    "last_error_class" TEXT,
    "last_error_at" TIMESTAMP(3),
    "holder" TEXT,
    "lease_until" TIMESTAMP(3),

    CONSTRAINT "audit_sinks_pkey" PRIMARY KEY ("name")
);
