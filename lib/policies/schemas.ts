// What a policy is, as an admin writes it (CLI flags, the admin page, a
// POLICY_FILE entry): one schema for every way in, so a rule accepted by one
// is accepted by all. Pure: the offline `policy check` uses it too.
import { z } from "zod";
import { roleSchema } from "../users/schemas";
import { slugSchema } from "../services/schemas";
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
  })
  .strict()
  .superRefine((p, ctx) => {
    // The default policy catches what no other policy matches: only who
    // reviews, how many and how long can change.
    if (p.name !== DEFAULT_POLICY_NAME) return;
    if (p.tool !== "*") ctx.addIssue({ code: "custom", path: ["tool"], message: "the default policy matches every tool: use '*'" });
    if (p.service) ctx.addIssue({ code: "custom", path: ["service"], message: "the default policy applies to every service" });
    if (p.effects) ctx.addIssue({ code: "custom", path: ["effects"], message: "the default policy applies to all effects" });
  });

/** Raw input from a flag, a form or a file: the schema decides what is valid. */
export type PolicyInput = { [K in keyof z.input<typeof policyInputSchema>]?: unknown };
export type PolicyDefinition = z.output<typeof policyInputSchema>;

/** A definition's fields in their one order: the CLI's JSON, audit records and comparisons follow it. */
export const POLICY_FIELDS = ["name", "tool", "service", "effects", "roles", "quorum", "ttl", "priority"] as const satisfies ReadonlyArray<
  keyof PolicyDefinition
>;

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
