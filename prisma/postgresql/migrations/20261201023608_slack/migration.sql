-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "slack_channel" TEXT;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "slack_channel" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "notify_slack" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "slack_linked_at" TIMESTAMP(3),
ADD COLUMN     "slack_user_id" TEXT;

-- CreateTable
CREATE TABLE "slack_posts" (
    "id" TEXT NOT NULL,
    "approval_id" TEXT NOT NULL,
    "notification_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "ts" TEXT NOT NULL,
    "user_id" TEXT,
    "shown_status" TEXT NOT NULL DEFAULT 'pending',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "slack_posts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "slack_posts_notification_id_key" ON "slack_posts"("notification_id");

-- CreateIndex
CREATE INDEX "slack_posts_shown_status_approval_id_idx" ON "slack_posts"("shown_status", "approval_id");

-- CreateIndex
CREATE UNIQUE INDEX "slack_posts_channel_ts_key" ON "slack_posts"("channel", "ts");

-- CreateIndex
CREATE UNIQUE INDEX "users_slack_user_id_key" ON "users"("slack_user_id");

-- AddForeignKey
ALTER TABLE "slack_posts" ADD CONSTRAINT "slack_posts_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
