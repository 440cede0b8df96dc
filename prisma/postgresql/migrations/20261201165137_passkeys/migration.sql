-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "require_passkey" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "require_passkey" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "passkeys" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "alg" INTEGER NOT NULL,
    "counter" INTEGER NOT NULL DEFAULT 0,
    "transports" TEXT NOT NULL DEFAULT '[]',
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "removed_at" TIMESTAMP(3),

    CONSTRAINT "passkeys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webauthn_challenges" (
    "nonce" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "approval_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),

    CONSTRAINT "webauthn_challenges_pkey" PRIMARY KEY ("nonce")
);

-- CreateTable
CREATE TABLE "vote_assertions" (
    "review_id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "credential_id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "authenticator_data" TEXT NOT NULL,
    "client_data_json" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vote_assertions_pkey" PRIMARY KEY ("review_id")
);

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

-- AddForeignKey
ALTER TABLE "passkeys" ADD CONSTRAINT "passkeys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vote_assertions" ADD CONSTRAINT "vote_assertions_review_id_fkey" FOREIGN KEY ("review_id") REFERENCES "reviews"("id") ON DELETE CASCADE ON UPDATE CASCADE;
