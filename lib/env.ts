// The one place that reads process.env. Validated once, on first use, with
// messages that name the variable. Outside production, missing secrets are
// generated once into a git-ignored file under the data directory
// (lib/local-secrets.ts), so `npm start` works on a fresh clone.
import "server-only";
import { z } from "zod";
import { loadOrCreateLocalSecrets, SECRET_NAMES, VAPID_NAMES, type SecretName } from "./local-secrets";

const base64Key32 = (name: string) =>
  z.string().refine((v) => Buffer.from(v, "base64").length === 32, {
    message: `${name} must be 32 random bytes, base64-encoded`,
  });

const isBase64Url = (v: string) => /^[A-Za-z0-9_-]+$/.test(v);

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const logLevelSchema = z.enum(LOG_LEVELS).default("info");

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).optional(),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    DATABASE_URL: z.string().min(1).default("file:./data/countersign.db"),
    COUNTERSIGN_DATA_DIR: z.string().min(1).default("./data"),
    APP_URL: z.url().optional(),
    AUTH_SECRET: z.string().min(32, "AUTH_SECRET must be at least 32 characters"),
    AUDIT_KEY: base64Key32("AUDIT_KEY"),
    ENCRYPTION_KEY: base64Key32("ENCRYPTION_KEY"),
    RECEIPT_SIGNING_KEY: z.string().min(1),
    AUTH_CREDENTIALS: flag,
    AUTH_OIDC_ISSUER: z.url().optional(),
    AUTH_OIDC_ID: z.string().min(1).optional(),
    AUTH_OIDC_SECRET: z.string().min(1).optional(),
    AUTH_OIDC_NAME: z.string().min(1).default("Single sign-on"),
    AUTH_OIDC_TRUST_EMAILS: flag,
    POLICY_FILE: z.string().min(1).optional(),
    LOG_LEVEL: logLevelSchema,
    // Proxies in front of the app that append to X-Forwarded-For; the sign-in
    // limit keys on the address the outermost of them saw (0: the socket's).
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    // Page renders at once per instance (scripts/server/page-turns.mjs); the
    // rest wait their turn. API routes and server actions never wait.
    PAGE_RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    // First retry delay of a failed callback; later ones double (capped at 1 h).
    CALLBACK_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
    // How long after an approved consume an execution report may take before
    // admins see the request at /admin/executions (docs/executions.md).
    EXECUTION_REPORT_GRACE_SECONDS: z.coerce
      .number({ error: "EXECUTION_REPORT_GRACE_SECONDS must be a whole number of seconds" })
      .int("EXECUTION_REPORT_GRACE_SECONDS must be a whole number of seconds")
      .min(0, "EXECUTION_REPORT_GRACE_SECONDS must be 0 or more")
      .max(2_592_000, "EXECUTION_REPORT_GRACE_SECONDS must be at most 2592000 (30 days)")
      .default(3600),
    // /admin/insights flags reviewers whose destructive approvals mostly came
    // sooner than this after the page was served (docs/insights.md).
    INSIGHTS_FAST_REVIEW_SECONDS: z.coerce
      .number({ error: "INSIGHTS_FAST_REVIEW_SECONDS must be a whole number of seconds" })
      .int("INSIGHTS_FAST_REVIEW_SECONDS must be a whole number of seconds")
      .min(1, "INSIGHTS_FAST_REVIEW_SECONDS must be at least 1")
      .max(3600, "INSIGHTS_FAST_REVIEW_SECONDS must be at most 3600")
      .default(10),
    // How long a consume receipt is good for (its exp claim); executors refuse to run on an expired one.
    RECEIPT_TTL_SECONDS: z.coerce
      .number({ error: "RECEIPT_TTL_SECONDS must be a whole number of seconds" })
      .int("RECEIPT_TTL_SECONDS must be a whole number of seconds")
      .min(60, "RECEIPT_TTL_SECONDS must be at least 60")
      .max(86_400, "RECEIPT_TTL_SECONDS must be at most 86400 (a day)")
      .default(600),
    // The server's V8 old-space ceiling (docs/operations.md "Memory"): without one, V8 on a large
    // machine lets garbage pile up to gigabytes before collecting it. npm start passes it to the server.
    HEAP_LIMIT_MIB: z.coerce
      .number({ error: "HEAP_LIMIT_MIB must be a whole number of MiB" })
      .int("HEAP_LIMIT_MIB must be a whole number of MiB")
      .min(128, "HEAP_LIMIT_MIB must be at least 128")
      .max(65_536, "HEAP_LIMIT_MIB must be at most 65536")
      .default(384),
    // Callback targets (docs/security.md). Loopback: unset means "allowed only outside production".
    CALLBACK_ALLOW_LOOPBACK: z
      .enum(["0", "1", "true", "false", ""])
      .optional()
      .transform((v) => (v === undefined || v === "" ? undefined : v === "1" || v === "true")),
    CALLBACK_DENY_PRIVATE: flag,
    // Email notifications (lib/notifications/mailer.ts): smtp:// or smtps://, credentials in the URL.
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, "SMTP_URL must be an smtp:// or smtps:// URL")
      .optional(),
    SMTP_FROM: z.string().min(3).default("Countersign <countersign@localhost>"),
    // Without SMTP_URL: 1 keeps email in the local mailbox at /admin/outbox (`npm start` sets it in local mode).
    NOTIFY_LOCAL_MAILBOX: flag,
    // approval.needs_review to one URL for every request (Teams, PagerDuty, an on-call tool), signed per Standard Webhooks.
    NOTIFY_WEBHOOK_URL: z.url().optional(),
    NOTIFY_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "NOTIFY_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more")
      .optional(),
    // First retry delay of a notification that could not be sent; later ones double (capped at 1 h).
    NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
    // Web Push (lib/notifications/web-push.ts): a P-256 key pair, base64url; without both, push is off.
    VAPID_PUBLIC_KEY: z
      .string()
      .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 65 && v.startsWith("B"), {
        message: "VAPID_PUBLIC_KEY must be an uncompressed P-256 public key (65 bytes), base64url",
      })
      .optional(),
    VAPID_PRIVATE_KEY: z
      .string()
      .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 32, {
        message: "VAPID_PRIVATE_KEY must be a P-256 private key (32 bytes), base64url",
      })
      .optional(),
    // Who push services may contact about this sender (RFC 8292). Apple refuses a localhost one.
    VAPID_SUBJECT: z
      .string()
      .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s/]+(\/\S*)?)$/, "VAPID_SUBJECT must be a mailto: address or an https: URL")
      .default("mailto:countersign@localhost"),
    // Push endpoints are https on port 443 (lib/notifications/push-target.ts); 1 allows any port (a push service on another one, tests).
    PUSH_ALLOW_ANY_PORT: flag,
    // Slack (lib/slack, docs/slack.md): the app's bot token and signing secret; without both, Slack is off.
    SLACK_BOT_TOKEN: z
      .string()
      .regex(/^xoxb-[A-Za-z0-9-]+$/, "SLACK_BOT_TOKEN must be a bot token (xoxb-…) from the Slack app's OAuth page")
      .optional(),
    SLACK_SIGNING_SECRET: z
      .string()
      .regex(/^[A-Za-z0-9]{16,}$/, "SLACK_SIGNING_SECRET must be the Slack app's signing secret (letters and digits)")
      .optional(),
    // The one Slack workspace whose users may act in Countersign (docs/slack.md): required with the bot token.
    SLACK_TEAM_ID: z
      .string()
      .regex(/^T[A-Z0-9]{2,40}$/, "SLACK_TEAM_ID must be a Slack workspace id: T followed by capital letters and digits (T0123ABCD)")
      .optional(),
    // Where the Slack Web API is: Slack's own unless a stand-in is named (the tests start one on this machine).
    SLACK_API_URL: z.url().default("https://slack.com/api/"),
    // Bench-only routes (app/api/bench/*) answer 404 unless set. Never set in production.
    COUNTERSIGN_BENCH: flag,
    // Bearer token of GET /api/metrics (lib/metrics, docs/operations.md); unset: metrics are off (404).
    METRICS_TOKEN: z
      .string()
      .min(32, "METRICS_TOKEN must be at least 32 characters (e.g. `openssl rand -hex 32`)")
      .max(512, "METRICS_TOKEN must be at most 512 characters")
      .regex(/^[A-Za-z0-9._~+/=-]+$/, "METRICS_TOKEN may hold only letters, digits and . _ ~ + / = - (a bearer token)")
      .optional(),
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
          "In production every secret must come from the environment (see README, Configuration).",
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
