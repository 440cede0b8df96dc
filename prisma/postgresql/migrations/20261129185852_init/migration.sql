-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT,
    "disabled_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_sign_in_at" TIMESTAMP(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "identities" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_roles" (
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "granted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "granted_by" TEXT,

    CONSTRAINT "user_roles_pkey" PRIMARY KEY ("user_id","role")
);

-- CreateTable
CREATE TABLE "services" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "api_token_hash" TEXT NOT NULL,
    "webhook_secret_enc" TEXT NOT NULL,
    "webhook_secret_prev_enc" TEXT,
    "callback_url" TEXT,
    "callback_secret_enc" TEXT NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL DEFAULT 600,
    "disabled_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "services_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "seen_webhooks" (
    "service_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "seen_webhooks_pkey" PRIMARY KEY ("service_id","webhook_id")
);

-- CreateTable
CREATE TABLE "approvals" (
    "id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "call_id" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "effects" TEXT NOT NULL,
    "environment" TEXT,
    "requested_by" TEXT,
    "summary" TEXT,
    "args_digest" TEXT NOT NULL,
    "redacted_args" TEXT NOT NULL,
    "policy_name" TEXT NOT NULL,
    "required_roles" TEXT NOT NULL,
    "quorum" INTEGER NOT NULL,
    "ttl_seconds" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "approve_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "decided_at" TIMESTAMP(3),
    "decided_by" TEXT NOT NULL DEFAULT '[]',
    "consumed_at" TIMESTAMP(3),

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "reviewer_id" TEXT NOT NULL,
    "reviewer_email" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reviews_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policies" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "service_slug" TEXT,
    "tool_pattern" TEXT NOT NULL,
    "effects" TEXT,
    "roles" TEXT NOT NULL,
    "quorum" INTEGER NOT NULL,
    "ttl_seconds" INTEGER NOT NULL,
    "priority" INTEGER NOT NULL DEFAULT 100,
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "policies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "redaction_rules" (
    "name" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT,

    CONSTRAINT "redaction_rules_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "seq" INTEGER NOT NULL,
    "id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "type" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "approval_id" TEXT,
    "data" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "audit_head" (
    "id" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "audit_head_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "callback_deliveries" (
    "id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "service_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMP(3) NOT NULL,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMP(3),

    CONSTRAINT "callback_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "callback_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "status_code" INTEGER,
    "error_class" TEXT,
    "duration_ms" INTEGER NOT NULL,

    CONSTRAINT "callback_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rate_limit_buckets" (
    "key" TEXT NOT NULL,
    "window_start" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("key","window_start")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "public_jwk" TEXT NOT NULL,
    "private_jwk_enc" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMP(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "identities_user_id_idx" ON "identities"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "identities_issuer_subject_key" ON "identities"("issuer", "subject");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "user_roles_role_idx" ON "user_roles"("role");

-- CreateIndex
CREATE UNIQUE INDEX "services_slug_key" ON "services"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "services_api_token_hash_key" ON "services"("api_token_hash");

-- CreateIndex
CREATE INDEX "seen_webhooks_received_at_idx" ON "seen_webhooks"("received_at");

-- CreateIndex
CREATE INDEX "approvals_status_created_at_id_idx" ON "approvals"("status", "created_at", "id");

-- CreateIndex
CREATE INDEX "approvals_status_expires_at_idx" ON "approvals"("status", "expires_at");

-- CreateIndex
CREATE INDEX "approvals_service_id_status_created_at_idx" ON "approvals"("service_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "approvals_tool_status_idx" ON "approvals"("tool", "status");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_service_id_run_id_call_id_key" ON "approvals"("service_id", "run_id", "call_id");

-- CreateIndex
CREATE INDEX "reviews_reviewer_id_idx" ON "reviews"("reviewer_id");

-- CreateIndex
CREATE UNIQUE INDEX "reviews_approval_id_reviewer_id_key" ON "reviews"("approval_id", "reviewer_id");

-- CreateIndex
CREATE UNIQUE INDEX "policies_name_key" ON "policies"("name");

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_id_key" ON "audit_events"("id");

-- CreateIndex
CREATE INDEX "audit_events_type_seq_idx" ON "audit_events"("type", "seq");

-- CreateIndex
CREATE INDEX "audit_events_approval_id_idx" ON "audit_events"("approval_id");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");

-- CreateIndex
CREATE UNIQUE INDEX "callback_deliveries_approval_id_key" ON "callback_deliveries"("approval_id");

-- CreateIndex
CREATE INDEX "callback_deliveries_status_next_attempt_at_idx" ON "callback_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "callback_deliveries_service_id_created_at_idx" ON "callback_deliveries"("service_id", "created_at");

-- CreateIndex
CREATE INDEX "callback_attempts_delivery_id_at_idx" ON "callback_attempts"("delivery_id", "at");

-- AddForeignKey
ALTER TABLE "identities" ADD CONSTRAINT "identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_roles" ADD CONSTRAINT "user_roles_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reviews" ADD CONSTRAINT "reviews_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "callback_deliveries" ADD CONSTRAINT "callback_deliveries_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "callback_deliveries" ADD CONSTRAINT "callback_deliveries_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "callback_attempts" ADD CONSTRAINT "callback_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "callback_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
