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

/**
 * When something set for a while ends (a time-bound role, being away): an ISO 8601 date-time with its offset
 * (2026-12-31T18:00:00Z, 2026-12-31T19:00+01:00), or without one as a
 * browser's datetime-local field sends it (2026-12-31T18:00), read as UTC.
 * A day the calendar does not have (02-30) is refused, not rolled over.
 */
export const untilSchema = z
  .string()
  .trim()
  .transform((text, ctx) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?$/.exec(text);
    const [y, mo, d, h, mi, sec = "0", ms = "0"] = (m ?? []).slice(1).map((p) => p ?? undefined);
    const local = m ? new Date(Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +sec, +ms.padEnd(3, "0"))) : null;
    const real =
      local !== null &&
      local.getUTCFullYear() === +y! &&
      local.getUTCMonth() === +mo! - 1 &&
      local.getUTCDate() === +d! &&
      +h! < 24 &&
      +mi! < 60 &&
      +sec < 60;
    if (!real) {
      ctx.addIssue({ code: "custom", message: "must be a date and time such as 2026-12-31T18:00Z (UTC when no offset is given)" });
      return z.NEVER;
    }
    const zone = m![8];
    if (!zone || zone === "Z") return local;
    const [zh, zm] = zone.slice(1).split(":").map(Number) as [number, number];
    const sign = zone.startsWith("-") ? -1 : 1;
    return new Date(local.getTime() - sign * (zh * 60 + zm) * 60_000);
  });
