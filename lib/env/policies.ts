// Policies and reviews: a policy file, and the insights' fast-review threshold.
import { z } from "zod";
import { doc } from "./groups";

export const policyVariables = {
  POLICY_FILE: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        "policies",
        "Policies from a YAML or JSON file, which then becomes the policies' only source; a file that does not validate stops start-up, naming the entry.",
      ),
    ),
  INSIGHTS_FAST_REVIEW_SECONDS: z.coerce
    .number({ error: "INSIGHTS_FAST_REVIEW_SECONDS must be a whole number of seconds" })
    .int("INSIGHTS_FAST_REVIEW_SECONDS must be a whole number of seconds")
    .min(1, "INSIGHTS_FAST_REVIEW_SECONDS must be at least 1")
    .max(3600, "INSIGHTS_FAST_REVIEW_SECONDS must be at most 3600")
    .default(10)
    .meta(
      doc(
        "policies",
        "`/admin/insights` flags a reviewer when more than half of their destructive approvals, and at least 3, came sooner than this many seconds after the request's page was served to them (docs/insights.md).",
      ),
    ),
};
