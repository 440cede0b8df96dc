// Web Push: the VAPID key pair and subject, and the push endpoints allowed.
import { z } from "zod";
import { doc, GENERATED } from "./groups";
import { flag } from "./values";

const isBase64Url = (v: string) => /^[A-Za-z0-9_-]+$/.test(v);

export const webPushVariables = {
  VAPID_PUBLIC_KEY: z
    .string()
    .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 65 && v.startsWith("B"), {
      message: "VAPID_PUBLIC_KEY must be an uncompressed P-256 public key (65 bytes), base64url",
    })
    .optional()
    .meta(
      doc(
        "web push",
        "Web Push's P-256 public key, base64url (`npx web-push generate-vapid-keys` makes a pair). Both keys or neither: without them push is off and `/settings` says so.",
        GENERATED,
      ),
    ),
  VAPID_PRIVATE_KEY: z
    .string()
    .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 32, {
      message: "VAPID_PRIVATE_KEY must be a P-256 private key (32 bytes), base64url",
    })
    .optional()
    .meta(doc("web push", "Its private key (32 bytes, base64url).", GENERATED)),
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s/]+(\/\S*)?)$/, "VAPID_SUBJECT must be a mailto: address or an https: URL")
    .default("mailto:countersign@localhost")
    .meta(
      doc(
        "web push",
        "Whom push services may contact about this sender (RFC 8292): a `mailto:` address or an `https:` URL. Set a real one in production: Apple refuses `localhost`.",
      ),
    ),
  PUSH_ALLOW_ANY_PORT: flag.meta(
    doc(
      "web push",
      "`1` lets push endpoints use a port other than 443 (a push service of your own, a test stand-in). Endpoints are always `https:`, never private, link-local or metadata addresses, loopback only with `CALLBACK_ALLOW_LOOPBACK`.",
    ),
  ),
};
