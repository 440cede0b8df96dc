-- CreateTable
CREATE TABLE "metrics_leases" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "expires_at" DATETIME NOT NULL
);
