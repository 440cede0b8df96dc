import { z } from "zod";

export const slugSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "must be 2-63 lower-case letters, digits or '-', starting with a letter or digit");

/** The URL, or null: zod runs the refinements below even after `z.url()` failed. */
const asUrl = (u: string): URL | null => (URL.canParse(u) ? new URL(u) : null);

/** Callback and notification webhook URLs: http(s) only, no credentials in the URL. */
export const callbackUrlSchema = z
  .url("must be a URL")
  .max(2000)
  .refine((u) => /^https?:$/.test(asUrl(u)?.protocol ?? "http:"), "must be an http or https URL")
  .refine((u) => !asUrl(u)?.username && !asUrl(u)?.password, "must not contain credentials");
