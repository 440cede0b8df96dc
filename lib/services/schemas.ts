import { z } from "zod";

export const slugSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "must be 2-63 lower-case letters, digits or '-', starting with a letter or digit");

/** Callback URLs: http(s) only, no credentials in the URL. */
export const callbackUrlSchema = z
  .url("must be a URL")
  .max(2000)
  .refine((u) => /^https?:$/.test(new URL(u).protocol), "must be an http or https URL")
  .refine((u) => !new URL(u).username && !new URL(u).password, "must not contain credentials");
