-- AlterTable
ALTER TABLE "services" ADD COLUMN "api_token_prev_hash" TEXT;
ALTER TABLE "services" ADD COLUMN "callback_secret_prev_enc" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "services_api_token_prev_hash_key" ON "services"("api_token_prev_hash");
