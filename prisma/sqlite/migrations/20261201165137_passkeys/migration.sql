-- CreateTable
CREATE TABLE "passkeys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "alg" INTEGER NOT NULL,
    "counter" INTEGER NOT NULL DEFAULT 0,
    "transports" TEXT NOT NULL DEFAULT '[]',
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" DATETIME,
    "removed_at" DATETIME,
    CONSTRAINT "passkeys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "webauthn_challenges" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "approval_id" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "used_at" DATETIME
);

-- CreateTable
CREATE TABLE "vote_assertions" (
    "review_id" TEXT NOT NULL PRIMARY KEY,
    "approval_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "authenticator_data" TEXT NOT NULL,
    "client_data_json" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "vote_assertions_review_id_fkey" FOREIGN KEY ("review_id") REFERENCES "reviews" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Added in place (a copy of the approvals table would take as long as the table is big).
-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "require_passkey" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN "require_passkey" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "passkeys_credential_id_key" ON "passkeys"("credential_id");

-- CreateIndex
CREATE INDEX "passkeys_user_id_removed_at_idx" ON "passkeys"("user_id", "removed_at");

-- CreateIndex
CREATE INDEX "webauthn_challenges_expires_at_idx" ON "webauthn_challenges"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "vote_assertions_nonce_key" ON "vote_assertions"("nonce");

-- CreateIndex
CREATE INDEX "vote_assertions_approval_id_idx" ON "vote_assertions"("approval_id");
