// Secrets: generated locally outside production (lib/local-secrets.ts), required in production.
import { z } from "zod";
import { doc, GENERATED } from "./groups";
import { base64Key32 } from "./values";

export const secretVariables = {
  AUTH_SECRET: z
    .string()
    .min(32, "AUTH_SECRET must be at least 32 characters")
    .meta(doc("secrets", "Signs session cookies; at least 32 characters.", GENERATED)),
  AUDIT_KEY: base64Key32("AUDIT_KEY").meta(doc("secrets", "The audit chain's HMAC key: 32 random bytes, base64.", GENERATED)),
  ENCRYPTION_KEY: base64Key32("ENCRYPTION_KEY").meta(doc("secrets", "Encrypts secrets at rest (AES-256-GCM): 32 random bytes, base64.", GENERATED)),
  RECEIPT_SIGNING_KEY: z
    .string()
    .min(1)
    .meta(
      doc(
        "secrets",
        "The first Ed25519 key that signs consume receipts, as a private JWK (JSON); later keys are made with `receipt-key rotate`.",
        GENERATED,
      ),
    ),
};
