// "Which policy would govern this request?", for the admin page's tester
// and `policy test`: the very matcher ingestion uses, on the stored policies.
import "server-only";
import { z } from "zod";
import { direct } from "../db/sql";
import { toolSchema } from "../approvals/schemas";
import { slugSchema } from "../services/schemas";
import { loadPolicies } from "./load-policies";
import { EFFECTS, matchingPolicies, matchPolicy, type PolicyRule } from "./match-policy";

export const policyQuestionSchema = z.object({
  service: slugSchema,
  tool: toolSchema,
  effects: z.enum(EFFECTS, "must be read, write or destructive").default("write"),
});

export type PolicyAnswer = {
  question: z.output<typeof policyQuestionSchema>;
  policy: PolicyRule;
  /** Other matching policies, in the order they would win if the first were gone. */
  alsoMatching: string[];
};

export async function whichPolicy(input: { service?: unknown; tool?: unknown; effects?: unknown }): Promise<PolicyAnswer> {
  const question = policyQuestionSchema.parse(input);
  const policies = await loadPolicies(direct());
  const policy = matchPolicy(policies, question);
  const alsoMatching = matchingPolicies(policies, question)
    .map((p) => p.name)
    .filter((n) => n !== policy.name);
  return { question, policy, alsoMatching };
}
