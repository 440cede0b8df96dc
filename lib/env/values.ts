// Value shapes more than one group of variables accepts.
import { z } from "zod";

export const base64Key32 = (name: string) =>
  z.string().refine((v) => Buffer.from(v, "base64").length === 32, {
    message: `${name} must be 32 random bytes, base64-encoded`,
  });

/** An on/off switch: `1` or `true` is on; unset, empty, `0` or `false` is off. */
export const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");

/** A first retry delay in milliseconds (callbacks, notifications): later ones double, capped at an hour. */
export const retryBaseMs = () => z.coerce.number().int().min(100).max(3_600_000).default(10_000);
