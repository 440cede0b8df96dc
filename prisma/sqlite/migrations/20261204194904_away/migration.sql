-- AlterTable
ALTER TABLE "users" ADD COLUMN "away_until" DATETIME;
