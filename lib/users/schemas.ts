import { z } from "zod";

/** Emails are compared and stored lower-cased (docs/architecture.md matches case-insensitively). */
export const emailSchema = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email("must be an email address"))
  .transform((e) => e.toLowerCase());

export const roleSchema = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_.-]{0,39}$/, "must be 1-40 lower-case letters, digits, '.', '_' or '-', starting with a letter");

export const passwordSchema = z.string().min(10, "must be at least 10 characters").max(200);

export const ADMIN_ROLE = "admin";
