// The one place that reads process.env. Validated once, on first use, with
// messages that name the variable. Outside production, missing secrets are
// generated once into a git-ignored file under the data directory
// (lib/local-secrets.ts), so `npm start` works on a fresh clone.
// The variables are declared by group in lib/env/ (one file per section of
// docs/configuration.md); this file joins them into the one schema, with the
// rules that tie variables together.
import "server-only";
import { z } from "zod";
import { loadOrCreateLocalSecrets, SECRET_NAMES, VAPID_NAMES, type SecretName } from "./local-secrets";
import { dataVariables } from "./env/data";
import { executorVariables } from "./env/executors";
import { notificationVariables } from "./env/notifications";
import { operationVariables } from "./env/operations";
import { policyVariables } from "./env/policies";
import { secretVariables } from "./env/secrets";
import { logLevelSchema, serverVariables, type LogLevel } from "./env/server";
import { signInVariables } from "./env/sign-in";
import { slackVariables } from "./env/slack";
import { webPushVariables } from "./env/web-push";

export { ENV_GROUPS, type EnvDoc } from "./env/groups";
export type { LogLevel } from "./env/server";

// In the order of docs/configuration.md's sections (ENV_GROUPS).
export const envSchema = z
  .object({
    ...serverVariables,
    ...dataVariables,
    ...secretVariables,
    ...signInVariables,
    ...policyVariables,
    ...executorVariables,
    ...notificationVariables,
    ...webPushVariables,
    ...slackVariables,
    ...operationVariables,
  })
  .refine((e) => !e.AUTH_OIDC_ISSUER || (e.AUTH_OIDC_ID && e.AUTH_OIDC_SECRET), {
    message: "AUTH_OIDC_ISSUER needs AUTH_OIDC_ID and AUTH_OIDC_SECRET",
    path: ["AUTH_OIDC_ID"],
  })
  .refine((e) => !e.VAPID_PUBLIC_KEY === !e.VAPID_PRIVATE_KEY, {
    message: "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together (`npx web-push generate-vapid-keys` makes a pair)",
    path: ["VAPID_PRIVATE_KEY"],
  })
  .refine((e) => !e.SLACK_BOT_TOKEN === !e.SLACK_SIGNING_SECRET, {
    message: "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET go together (both are on the Slack app's settings pages)",
    path: ["SLACK_SIGNING_SECRET"],
  })
  // Without it a click from any workspace the app is installed in could act: Slack stays off instead.
  .refine((e) => !e.SLACK_BOT_TOKEN || e.SLACK_TEAM_ID, {
    message:
      "SLACK_TEAM_ID is required with SLACK_BOT_TOKEN: the id of the Slack workspace whose users may approve (the T… in app.slack.com/client/T…/ with the workspace open in a browser)",
    path: ["SLACK_TEAM_ID"],
  })
  .refine((e) => !e.AUDIT_WEBHOOK_URL || e.AUDIT_WEBHOOK_SECRET, {
    message: "AUDIT_WEBHOOK_URL needs AUDIT_WEBHOOK_SECRET (whsec_ and a base64 key of 24 bytes or more)",
    path: ["AUDIT_WEBHOOK_SECRET"],
  })
  .refine((e) => !e.NOTIFY_WEBHOOK_URL || e.NOTIFY_WEBHOOK_SECRET, {
    message: "NOTIFY_WEBHOOK_URL needs NOTIFY_WEBHOOK_SECRET (whsec_…, e.g. from `npm run admin -- service add`'s format)",
    path: ["NOTIFY_WEBHOOK_SECRET"],
  });

export type Env = z.infer<typeof envSchema> & {
  databaseProvider: "sqlite" | "postgresql";
  appUrl: string;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function databaseProviderOf(url: string): "sqlite" | "postgresql" {
  return /^postgres(ql)?:\/\//.test(url) ? "postgresql" : "sqlite";
}

export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const raw: Record<string, string | undefined> = { ...source };
  const production = raw.NODE_ENV === "production";
  const missing = SECRET_NAMES.filter((n) => !raw[n]);
  if (missing.length > 0) {
    if (production) {
      throw new ConfigError(
        `Missing required configuration: ${missing.join(", ")}. ` +
          "In production every secret must come from the environment (docs/configuration.md).",
      );
    }
    const local = loadOrCreateLocalSecrets(raw.COUNTERSIGN_DATA_DIR ?? "./data");
    for (const n of missing) raw[n] = local[n as SecretName];
  }
  // Outside production a missing VAPID pair is generated like the secrets above (production: push stays off).
  if (!production && VAPID_NAMES.every((n) => !raw[n])) {
    const local = loadOrCreateLocalSecrets(raw.COUNTERSIGN_DATA_DIR ?? "./data");
    for (const n of VAPID_NAMES) raw[n] = local[n];
  }
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  return {
    ...e,
    databaseProvider: databaseProviderOf(e.DATABASE_URL),
    appUrl: (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
  };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/**
 * LOG_LEVEL on its own, read as it is now: logging must work where the rest
 * of the configuration does not validate (a missing secret is itself logged).
 * A value the schema refuses logs at "info"; start-up (env()) reports it.
 */
export function logLevel(): LogLevel {
  const parsed = logLevelSchema.safeParse(process.env.LOG_LEVEL);
  return parsed.success ? parsed.data : "info";
}
