-- Added in place (a copy of the approvals, policies and reviews tables would take as long as they are big).
-- AlterTable
ALTER TABLE "approvals" ADD COLUMN "min_review_seconds" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "approvals" ADD COLUMN "require_full_view" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN "min_review_seconds" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "policies" ADD COLUMN "require_full_view" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "reviews" ADD COLUMN "via" TEXT NOT NULL DEFAULT 'browser';

-- CreateTable
CREATE TABLE "review_views" (
    "approval_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "first_served_at" DATETIME NOT NULL,
    "full_view_at" DATETIME,
    "truncated" BOOLEAN NOT NULL DEFAULT false,

    PRIMARY KEY ("approval_id", "user_id"),
    CONSTRAINT "review_views_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "review_views_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "review_views_user_id_first_served_at_idx" ON "review_views"("user_id", "first_served_at");
