// What a browser sends for passkeys (docs/passkeys.md): WebAuthn's JSON forms
// of a registration and of an assertion, and a passkey's name. zod at the
// boundary; @simplewebauthn/server then checks the contents.
import { z } from "zod";

const b64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, "must be unpadded base64url");

export const passkeyNameSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, "must not contain control or format characters");

export const registrationResponseSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(8192),
    attestationObject: b64url(65536),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(8192).optional(),
    authenticatorData: b64url(65536).optional(),
  }),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

export const authenticationResponseSchema = z.object({
  id: b64url(1024),
  rawId: b64url(1024),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(8192),
    authenticatorData: b64url(65536),
    signature: b64url(2048),
    userHandle: z.string().max(1024).optional(),
  }),
  authenticatorAttachment: z.string().max(32).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
});

/** A vote's passkey part: the nonce the server issued and the browser's assertion. */
export const passkeyVoteSchema = z.object({
  nonce: b64url(100),
  response: authenticationResponseSchema,
});
export type PasskeyVote = z.infer<typeof passkeyVoteSchema>;

export const reviewerEmailParamSchema = z.object({
  email: z.string().trim().toLowerCase().max(320).pipe(z.email("must be an email address")),
});

/** The console's passkey vote body: the vote, and (for the vote itself) its passkey part. */
export const passkeyVoteBodySchema = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().max(2000).optional(),
  passkey: z.unknown().optional(),
});
