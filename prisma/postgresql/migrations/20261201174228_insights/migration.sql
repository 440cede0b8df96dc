-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "min_review_seconds" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "require_full_view" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "policies" ADD COLUMN     "min_review_seconds" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "require_full_view" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "reviews" ADD COLUMN     "via" TEXT NOT NULL DEFAULT 'browser';

-- CreateTable
CREATE TABLE "review_views" (
    "approval_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "first_served_at" TIMESTAMP(3) NOT NULL,
    "full_view_at" TIMESTAMP(3),
    "truncated" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "review_views_pkey" PRIMARY KEY ("approval_id","user_id")
);

-- CreateIndex
CREATE INDEX "review_views_user_id_first_served_at_idx" ON "review_views"("user_id", "first_served_at");

-- AddForeignKey
ALTER TABLE "review_views" ADD CONSTRAINT "review_views_approval_id_fkey" FOREIGN KEY ("approval_id") REFERENCES "approvals"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review_views" ADD CONSTRAINT "review_views_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
