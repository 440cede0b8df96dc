// Slack: the app's credentials and the one workspace whose users may act from it.
import { z } from "zod";
import { doc } from "./groups";

export const slackVariables = {
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-[A-Za-z0-9-]+$/, "SLACK_BOT_TOKEN must be a bot token (xoxb-…) from the Slack app's OAuth page")
    .optional()
    .meta(
      doc(
        "slack",
        "The Slack app's bot token (`xoxb-…`). With `SLACK_SIGNING_SECRET` and `SLACK_TEAM_ID`, reviewers approve and deny from Slack under the browser's rules (docs/slack.md); without them Slack is off.",
      ),
    ),
  SLACK_SIGNING_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9]{16,}$/, "SLACK_SIGNING_SECRET must be the Slack app's signing secret (letters and digits)")
    .optional()
    .meta(doc("slack", "The Slack app's signing secret (Basic Information).")),
  SLACK_TEAM_ID: z
    .string()
    .regex(/^T[A-Z0-9]{2,40}$/, "SLACK_TEAM_ID must be a Slack workspace id: T followed by capital letters and digits (T0123ABCD)")
    .optional()
    .meta(
      doc(
        "slack",
        "The one workspace (`T…`) whose users may act from Slack; required with the bot token. Interactions and links from any other workspace are refused.",
      ),
    ),
  SLACK_API_URL: z.url().default("https://slack.com/api/").meta(doc("slack", "Where the Slack Web API is; the tests point it at their stand-in.")),
};
