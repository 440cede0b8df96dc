-- CreateTable
CREATE TABLE "metrics_leases" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "metrics_leases_pkey" PRIMARY KEY ("name")
);
