// Rotating a service's credentials (docs/operations.md, Rotating a service's
// credentials): the webhook secret, the API token and the callback secret.
// Each rotation has two steps. Starting one makes a new value current and
// keeps the previous one working: webhooks verify against both secrets, both
// tokens authenticate, callbacks carry a signature by each secret. Finishing
// it drops the previous value. A second start before the finish is refused,
// so a value in use is never dropped silently.
import "server-only";
import { z } from "zod";
import type { Tx } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { encryptSecret, tokenHash } from "../crypto/at-rest";
import { AppError, parseField } from "../errors";
import { newToken } from "../ids";
import { generateWebhookSecret } from "@countersign/client";
import { slugSchema } from "./schemas";
import { PURPOSE } from "./service-secrets";

export const CREDENTIALS = ["webhook-secret", "api-token", "callback-secret"] as const;
export type Credential = (typeof CREDENTIALS)[number];
const credentialSchema = z.enum(CREDENTIALS, "must be webhook-secret, api-token or callback-secret");

/** How each credential is named in sentences. */
export const CREDENTIAL_WORDS: Record<Credential, string> = {
  "webhook-secret": "webhook secret",
  "api-token": "API token",
  "callback-secret": "callback secret",
};

/**
 * A second start before the first rotation was finished. The message names no
 * surface's way to finish it: each surface adds its own (a button, a flag).
 */
export class RotationInProgressError extends AppError {
  constructor(
    readonly slug: string,
    readonly credential: Credential,
  ) {
    super("conflict", `a rotation of the ${CREDENTIAL_WORDS[credential]} of ${slug} is already in progress: finish it before starting another`);
  }
}

/** The columns of each credential: its current value and the previous one kept during a rotation. */
const COLUMNS = {
  "webhook-secret": { current: "webhookSecretEnc", previous: "webhookSecretPrevEnc" },
  "api-token": { current: "apiTokenHash", previous: "apiTokenPrevHash" },
  "callback-secret": { current: "callbackSecretEnc", previous: "callbackSecretPrevEnc" },
} as const;

function newValue(credential: Credential): { shown: string; stored: string } {
  if (credential === "api-token") {
    const token = newToken("cs_tok_");
    return { shown: token, stored: tokenHash(token) };
  }
  const secret = generateWebhookSecret();
  return { shown: secret, stored: encryptSecret(secret, credential === "webhook-secret" ? PURPOSE.webhook : PURPOSE.callback) };
}

async function serviceRow(tx: Tx, slug: string) {
  const s = await tx.service.findUnique({
    where: { slug },
    select: {
      id: true,
      webhookSecretEnc: true,
      webhookSecretPrevEnc: true,
      apiTokenHash: true,
      apiTokenPrevHash: true,
      callbackSecretEnc: true,
      callbackSecretPrevEnc: true,
    },
  });
  if (!s) throw new AppError("not-found", `no service ${slug}`);
  return s;
}

/** Starts a rotation: the new value (shown once) becomes current, the previous one stays valid until the rotation is finished. */
export async function rotateCredential(
  slugInput: string,
  credentialInput: string,
  actor: Actor,
): Promise<{ slug: string; credential: Credential; value: string }> {
  const slug = parseField(slugSchema, slugInput, "slug");
  const credential = parseField(credentialSchema, credentialInput, "credential");
  const value = newValue(credential);
  const { current, previous } = COLUMNS[credential];
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "service.secret_rotated", actor, data: { service: slug, credential, step: "started" } });
    const s = await serviceRow(tx, slug);
    if (s[previous] !== null) throw new RotationInProgressError(slug, credential);
    await tx.service.update({ where: { id: s.id }, data: { [previous]: s[current], [current]: value.stored } });
    return { slug, credential, value: value.shown };
  });
}

/** Finishes a rotation: only the new value is valid from now on. */
export async function finishCredentialRotation(
  slugInput: string,
  credentialInput: string,
  actor: Actor,
): Promise<{ slug: string; credential: Credential; rotation: "finished" }> {
  const slug = parseField(slugSchema, slugInput, "slug");
  const credential = parseField(credentialSchema, credentialInput, "credential");
  const { previous } = COLUMNS[credential];
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "service.secret_rotated", actor, data: { service: slug, credential, step: "finished" } });
    const { count } = await tx.service.updateMany({ where: { slug, [previous]: { not: null } }, data: { [previous]: null } });
    if (count === 0) throw new AppError("conflict", `no rotation of the ${CREDENTIAL_WORDS[credential]} of ${slug} is in progress`);
    return { slug, credential, rotation: "finished" as const };
  });
}
