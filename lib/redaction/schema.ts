import { z } from "zod";
import { validateCustomPattern } from "./custom-pattern";

/** Request body for adding a custom rule; runs the full pattern check. */
export const customRuleSchema = z.object({ name: z.string(), pattern: z.string() }).superRefine((rule, ctx) => {
  const check = validateCustomPattern(rule.name, rule.pattern);
  if (!check.ok) ctx.addIssue({ code: "custom", path: [check.field], message: check.message });
});
