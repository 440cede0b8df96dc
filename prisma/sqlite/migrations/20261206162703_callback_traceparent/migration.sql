-- AlterTable
ALTER TABLE "callback_deliveries" ADD COLUMN "traceparent" TEXT;
