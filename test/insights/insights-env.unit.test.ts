// INSIGHTS_FAST_REVIEW_SECONDS (docs/insights.md) is read and validated with
// the rest of the configuration: whole seconds from 1 to 3600, 10 when unset;
// anything else stops start-up with a message that names the variable.
import { describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { ConfigError, parseEnv } from "@/lib/env";

const base = () => ({ ...generateSecrets(), NODE_ENV: "production" as const });

describe("INSIGHTS_FAST_REVIEW_SECONDS", () => {
  it("defaults to 10 and takes whole seconds from 1 to 3600", () => {
    expect(parseEnv(base()).INSIGHTS_FAST_REVIEW_SECONDS).toBe(10);
    for (const [raw, seconds] of [
      ["1", 1],
      ["30", 30],
      ["3600", 3600],
    ] as const) {
      expect(parseEnv({ ...base(), INSIGHTS_FAST_REVIEW_SECONDS: raw }).INSIGHTS_FAST_REVIEW_SECONDS).toBe(seconds);
    }
  });

  it("refuses anything else, naming the variable", () => {
    for (const raw of ["0", "-1", "1.5", "ten", "3601"]) {
      expect(() => parseEnv({ ...base(), INSIGHTS_FAST_REVIEW_SECONDS: raw }), raw).toThrow(ConfigError);
      expect(() => parseEnv({ ...base(), INSIGHTS_FAST_REVIEW_SECONDS: raw }), raw).toThrow(/INSIGHTS_FAST_REVIEW_SECONDS/);
    }
  });
});
