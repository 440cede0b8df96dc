// SLACK_TEAM_ID (docs/slack.md): the one workspace whose users may act in
// Countersign. Slack set up without it does not start (fail closed), with a
// message that names the variable; a value that is not a workspace id is refused.
import { describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { ConfigError, parseEnv } from "@/lib/env";

const base = () => ({ ...generateSecrets(), NODE_ENV: "production" as const });
const slack = { SLACK_BOT_TOKEN: "xoxb-1-2-abc", SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5" };

describe("SLACK_TEAM_ID", () => {
  it("is required with the Slack app's token and secret, and named when missing", () => {
    expect(() => parseEnv({ ...base(), ...slack })).toThrow(ConfigError);
    expect(() => parseEnv({ ...base(), ...slack })).toThrow(/SLACK_TEAM_ID is required with SLACK_BOT_TOKEN/);
    expect(parseEnv({ ...base(), ...slack, SLACK_TEAM_ID: "T0123ABCD" }).SLACK_TEAM_ID).toBe("T0123ABCD");
    // Without Slack it is not needed.
    expect(parseEnv(base()).SLACK_TEAM_ID).toBeUndefined();
  });

  it("refuses what is not a workspace id, naming the variable", () => {
    for (const raw of ["", "t0123abcd", "U0123ABCD", "T0123 ABCD", "T"]) {
      expect(() => parseEnv({ ...base(), ...slack, SLACK_TEAM_ID: raw }), raw).toThrow(/SLACK_TEAM_ID/);
    }
  });
});
