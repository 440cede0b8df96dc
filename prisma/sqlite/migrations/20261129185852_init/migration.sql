-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT,
    "disabled_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_sign_in_at" DATETIME
);

-- CreateTable
CREATE TABLE "identities" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "user_id" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "revoked_at" DATETIME,
    CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "user_roles" (
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "granted_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "granted_by" TEXT,

    PRIMARY KEY ("user_id", "role"),
    CONSTRAINT "user_roles_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "services" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "slug" TEXT NOT NULL,
    "api_token_hash" TEXT NOT NULL,
    "webhook_secret_enc" TEXT NOT NULL,
    "webhook_secret_prev_enc" TEXT,
    "callback_url" TEXT,
    "callback_secret_enc" TEXT NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL DEFAULT 600,
    "disabled_at" DATETIME,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "seen_webhooks" (
    "service_id" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "received_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("service_id", "webhook_id")
);

-- CreateTable
CREATE TABLE "approvals" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "decided_at" DATETIME,
    "decided_by" TEXT NOT NULL DEFAULT '[]',
    "consumed_at" DATETIME,
    CONSTRAINT "approvals_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "services" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approval_id" TEXT NOT NULL,
    "reviewer_id" TEXT NOT NULL,
    "reviewer_email" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "reviews_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "reviews_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "policies" (
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
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "redaction_rules" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "pattern" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" TEXT
);

-- CreateTable
CREATE TABLE "audit_events" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "id" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "type" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "approval_id" TEXT,
    "data" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,
    "hash" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "audit_head" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "seq" INTEGER NOT NULL,
    "hash" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "callback_deliveries" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "approval_id" TEXT NOT NULL,
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

-- CreateTable
CREATE TABLE "callback_attempts" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "delivery_id" TEXT NOT NULL,
    "at" DATETIME NOT NULL,
    "status_code" INTEGER,
    "error_class" TEXT,
    "duration_ms" INTEGER NOT NULL,
    CONSTRAINT "callback_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "callback_deliveries" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "rate_limit_buckets" (
    "key" TEXT NOT NULL,
    "window_start" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("key", "window_start")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL PRIMARY KEY,
    "public_jwk" TEXT NOT NULL,
    "private_jwk_enc" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" DATETIME
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
