// What a policy is, as an admin writes it (CLI flags, the admin page, a
// POLICY_FILE entry): one schema for every way in, so a rule accepted by one
// is accepted by all. Pure: the offline `policy check` uses it too.
import { z } from "zod";
import { roleSchema } from "../users/schemas";
import { slugSchema } from "../services/schemas";
import { humanSeconds } from "../format/time";
import { EFFECTS, toolPatternSchema } from "./match-policy";

export const DEFAULT_POLICY_NAME = "default";
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 30 * 24 * 3600;
export const MAX_QUORUM = 20;
export const DEFAULT_PRIORITY = 100;

export const policyNameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, "must be 1-100 letters, digits, '_', '.', ':' or '-', starting with a letter or digit");

// Numbers, or digits as typed in a form or a flag; nothing else is coerced.
const integer = (min: number, max: number, what: string) =>
  z.preprocess(
    (v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z
      .number(`must be a whole number${what}`)
      .int(`must be a whole number${what}`)
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

export const MAX_REMINDERS = 5;
/** The longest min_review_seconds: an hour. */
export const MAX_MIN_REVIEW_SECONDS = 3600;

// "0.5, 0.9" as typed in a flag or a form, or a list from a policy file.
const listOf = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x.length > 0)
    : v;

const fractionSchema = z.preprocess(
  (v) => (typeof v === "string" && /^\s*\d*\.?\d+\s*$/.test(v) ? Number(v) : v),
  z
    .number("must be a fraction of the TTL, e.g. 0.5")
    .gt(0, "must be more than 0 (a fraction of the TTL)")
    .lt(1, "must be less than 1 (a fraction of the TTL)"),
);

/** When reminders go out, as fractions of the TTL: strictly increasing, each 0 < f < 1. */
const remindAtSchema = z.preprocess(
  (v) => listOf(v ?? []),
  z
    .array(fractionSchema, "must be a list of fractions of the TTL, e.g. 0.5,0.9")
    .max(MAX_REMINDERS, `must name at most ${MAX_REMINDERS} reminders`)
    .superRefine((fs, ctx) => {
      for (let i = 1; i < fs.length; i++) {
        if (fs[i]! <= fs[i - 1]!)
          ctx.addIssue({ code: "custom", path: [i], message: "must be larger than the reminder before it (strictly increasing)" });
      }
    }),
);

/** A Slack channel as chat.postMessage takes it: its id (C0123ABCD) or #name. Empty means none. */
export const slackChannelSchema = z.preprocess(
  (v) => (typeof v === "string" && v.trim() === "" ? null : typeof v === "string" ? v.trim() : v),
  z
    .string()
    .regex(/^([CGD][A-Z0-9]{6,20}|#[a-z0-9][a-z0-9_-]{0,79})$/, "must be a Slack channel id (C0123ABCD) or #name (lower case)")
    .nullable(),
);

/** true/false, or as typed in a flag or a form: "true", "false", "on", "1", "0", "yes", "no". */
const booleanSchema = z.preprocess((v) => {
  if (typeof v !== "string") return v;
  const t = v.trim().toLowerCase();
  if (["true", "on", "1", "yes"].includes(t)) return true;
  if (["false", "off", "0", "no", ""].includes(t)) return false;
  return v;
}, z.boolean("must be true or false"));

const rolesListSchema = (max: number) =>
  z
    .array(roleSchema)
    .max(max, `must name at most ${max} roles`)
    .transform((r) => [...new Set(r)]);

export const policyInputSchema = z
  .object({
    name: policyNameSchema,
    tool: z.string().trim().pipe(toolPatternSchema),
    service: slugSchema.nullish().transform((v) => v ?? null),
    effects: z
      .enum(EFFECTS, "must be read, write or destructive")
      .nullish()
      .transform((v) => v ?? null),
    roles: z
      .array(roleSchema)
      .min(1, "must name at least one role")
      .max(20, "must name at most 20 roles")
      .transform((r) => [...new Set(r)]),
    quorum: integer(1, MAX_QUORUM, " of approvals"),
    ttl: integer(MIN_TTL_SECONDS, MAX_TTL_SECONDS, " of seconds"),
    priority: integer(0, 1_000_000, "")
      .optional()
      .transform((v) => v ?? DEFAULT_PRIORITY),
    remind_at: remindAtSchema,
    escalate_after: integer(1, MAX_TTL_SECONDS, " of seconds")
      .nullish()
      .transform((v) => v ?? null),
    escalate_to_roles: z.preprocess((v) => listOf(v ?? []), rolesListSchema(20)),
    slack_channel: slackChannelSchema.nullish().transform((v) => v ?? null),
    // 0 (the default): no standing approvals under this policy.
    standing_max_ttl: integer(0, MAX_TTL_SECONDS, " of seconds")
      .nullish()
      .transform((v) => v ?? 0),
    // Every vote needs a WebAuthn assertion over the vote (docs/passkeys.md); false by default.
    require_passkey: booleanSchema.nullish().transform((v) => v ?? false),
    // Anti-rubber-stamp (docs/insights.md): least seconds on the request's page before a vote (0: off) …
    min_review_seconds: integer(0, MAX_MIN_REVIEW_SECONDS, " of seconds")
      .nullish()
      .transform((v) => v ?? 0),
    // … and a truncated view of the arguments must be opened in full before a vote.
    require_full_view: booleanSchema.nullish().transform((v) => v ?? false),
  })
  .strict()
  .superRefine((p, ctx) => {
    // Escalation needs both halves: when, and to whom.
    if (p.escalate_after !== null && p.escalate_to_roles.length === 0) {
      ctx.addIssue({ code: "custom", path: ["escalate_to_roles"], message: "is required when escalate_after is set: the roles to add" });
    }
    if (p.escalate_after === null && p.escalate_to_roles.length > 0) {
      ctx.addIssue({ code: "custom", path: ["escalate_after"], message: "is required when escalate_to_roles is set: seconds until escalation" });
    }
    if (p.require_passkey && p.standing_max_ttl > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["standing_max_ttl"],
        message: "must be 0 when require_passkey is true: a standing approval cannot carry a passkey assertion",
      });
    }
    if (p.escalate_after !== null && p.escalate_after >= p.ttl) {
      ctx.addIssue({ code: "custom", path: ["escalate_after"], message: "must be less than the TTL, or the request expires before it escalates" });
    }
  })
  .superRefine((p, ctx) => {
    // The default policy catches what no other policy matches: only who
    // reviews, how many, how long, and its reminders and escalation can change.
    if (p.name !== DEFAULT_POLICY_NAME) return;
    if (p.tool !== "*") ctx.addIssue({ code: "custom", path: ["tool"], message: "the default policy matches every tool: use '*'" });
    if (p.service) ctx.addIssue({ code: "custom", path: ["service"], message: "the default policy applies to every service" });
    if (p.effects) ctx.addIssue({ code: "custom", path: ["effects"], message: "the default policy applies to all effects" });
  });

/** Raw input from a flag, a form or a file: the schema decides what is valid. */
export type PolicyInput = { [K in keyof z.input<typeof policyInputSchema>]?: unknown };
export type PolicyDefinition = z.output<typeof policyInputSchema>;

/** A definition's fields in their one order: the CLI's JSON, audit records and comparisons follow it. */
export const POLICY_FIELDS = [
  "name",
  "tool",
  "service",
  "effects",
  "roles",
  "quorum",
  "ttl",
  "priority",
  "remind_at",
  "escalate_after",
  "escalate_to_roles",
  "slack_channel",
  "standing_max_ttl",
  "require_passkey",
  "min_review_seconds",
  "require_full_view",
] as const satisfies ReadonlyArray<keyof PolicyDefinition>;

/** Just the definition's fields, in POLICY_FIELDS order. */
export function policyFieldsOf(p: PolicyDefinition): PolicyDefinition {
  return Object.fromEntries(POLICY_FIELDS.map((f) => [f, p[f]])) as PolicyDefinition;
}

/** "a, b,c" → ["a","b","c"]: roles as typed on the command line or in a form. */
export function splitRoles(value: string): string[] {
  return value
    .split(",")
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
}

/** "reminders at 50%, 90% of the TTL · escalation to oncall after 10 min", or "" when the policy has neither. */
export function followUpWords(p: { remindAt: readonly number[]; escalateAfterSeconds: number | null; escalateToRoles: readonly string[] }): string {
  const parts: string[] = [];
  if (p.remindAt.length) parts.push(`reminders at ${p.remindAt.map((f) => `${Math.round(f * 1000) / 10}%`).join(", ")} of the TTL`);
  if (p.escalateAfterSeconds !== null) parts.push(`escalation to ${p.escalateToRoles.join(", ")} after ${humanSeconds(p.escalateAfterSeconds)}`);
  return parts.join(" · ");
}
