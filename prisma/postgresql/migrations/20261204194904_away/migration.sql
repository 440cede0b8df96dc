-- AlterTable
ALTER TABLE "users" ADD COLUMN     "away_until" TIMESTAMP(3);
