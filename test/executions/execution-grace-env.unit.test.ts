// EXECUTION_REPORT_GRACE_SECONDS (docs/executions.md) is read and validated
// with the rest of the configuration: a whole number of seconds from 0 to
// 30 days, 3600 when unset; anything else stops start-up with a message that
// names the variable.
import { describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { ConfigError, parseEnv } from "@/lib/env";

const base = () => ({ ...generateSecrets(), NODE_ENV: "production" as const });

describe("EXECUTION_REPORT_GRACE_SECONDS", () => {
  it("defaults to an hour and takes whole seconds from 0 to 30 days", () => {
    expect(parseEnv(base()).EXECUTION_REPORT_GRACE_SECONDS).toBe(3600);
    for (const [raw, seconds] of [
      ["0", 0],
      ["90", 90],
      ["2592000", 2_592_000],
    ] as const) {
      expect(parseEnv({ ...base(), EXECUTION_REPORT_GRACE_SECONDS: raw }).EXECUTION_REPORT_GRACE_SECONDS).toBe(seconds);
    }
  });

  it("refuses anything else, naming the variable", () => {
    for (const raw of ["-1", "1.5", "an hour", "2592001"]) {
      expect(() => parseEnv({ ...base(), EXECUTION_REPORT_GRACE_SECONDS: raw }), raw).toThrow(ConfigError);
      expect(() => parseEnv({ ...base(), EXECUTION_REPORT_GRACE_SECONDS: raw }), raw).toThrow(/EXECUTION_REPORT_GRACE_SECONDS/);
    }
  });
});
