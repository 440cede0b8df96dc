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

/** Where a variable is listed in docs/configuration.md (scripts/docs/configuration.ts). */
export const ENV_GROUPS = {
  server: "Server",
  data: "Database and data directory",
  secrets: "Secrets",
  "sign-in": "Sign-in",
  policies: "Policies and reviews",
  executors: "Executors and callbacks",
  notifications: "Notifications",
  "web push": "Web Push",
  slack: "Slack",
  operations: "Operations",
} as const;
export type EnvDoc = { group: keyof typeof ENV_GROUPS; description: string; defaultNote?: string };
/** A variable's documentation, kept on its schema: docs/configuration.md is generated from it. */
const doc = (group: EnvDoc["group"], description: string, defaultNote?: string): EnvDoc => ({
  group,
  description,
  ...(defaultNote ? { defaultNote } : {}),
});
const GENERATED = "generated locally";
/** A first retry delay in milliseconds (callbacks, notifications): later ones double, capped at an hour. */
const retryBaseMs = () => z.coerce.number().int().min(100).max(3_600_000).default(10_000);

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const logLevelSchema = z.enum(LOG_LEVELS).default("info");

export const envSchema = z
  .object({
    NODE_ENV: z
      .enum(["development", "production", "test"])
      .optional()
      .meta(
        doc(
          "server",
          "`production` for a real deployment: every secret must then be set, nothing is generated or seeded, the credentials sign-in is off unless `AUTH_CREDENTIALS` turns it on, and callbacks may not go to loopback.",
          "local mode",
        ),
      ),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000).meta(doc("server", "The port the server listens on.")),
    APP_URL: z
      .url()
      .optional()
      .meta(
        doc(
          "server",
          "The public base URL, as reviewers open it (links in `review_url`, emails, Slack). Its scheme, host and port are the only origin server actions accept, and its host is the passkeys' relying party (docs/passkeys.md).",
          "`http://localhost:$PORT`",
        ),
      ),
    AUTH_URL: z.url().optional().meta(doc("server", "Auth.js's own base URL: set it to `APP_URL` behind a proxy.")),
    // Proxies in front of the app that append to X-Forwarded-For.
    TRUSTED_PROXY_HOPS: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(0)
      .meta(
        doc(
          "server",
          "How many proxies in front of the app append to `X-Forwarded-For`. The sign-in limit keys on the address the outermost of them saw; 0 uses the socket's address. A header the client sent is never trusted.",
        ),
      ),
    PAGE_RENDER_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(2)
      .meta(
        doc(
          "server",
          "Page renders at once per instance (scripts/server/page-turns.mjs); the others wait their turn, so heavy pages cannot hold up the health check or the API, which never wait (docs/security.md).",
        ),
      ),
    HEAP_LIMIT_MIB: z.coerce
      .number({ error: "HEAP_LIMIT_MIB must be a whole number of MiB" })
      .int("HEAP_LIMIT_MIB must be a whole number of MiB")
      .min(128, "HEAP_LIMIT_MIB must be at least 128")
      .max(65_536, "HEAP_LIMIT_MIB must be at most 65536")
      .default(384)
      .meta(
        doc(
          "server",
          "The server's V8 heap ceiling in MiB, passed by `npm start` as `--max-old-space-size` unless `NODE_OPTIONS` sets one: without it, V8 on a large machine lets garbage pile up to gigabytes (docs/operations.md, Memory).",
        ),
      ),
    LOG_LEVEL: logLevelSchema.meta(doc("server", "The least important log lines written: JSON lines on stdout.")),
    DATABASE_URL: z
      .string()
      .min(1)
      .default("file:./data/countersign.db")
      .meta(doc("data", "A SQLite file (`file:…`), or a `postgresql://` URL for PostgreSQL, which several instances can share.")),
    COUNTERSIGN_DATA_DIR: z
      .string()
      .min(1)
      .default("./data")
      .meta(doc("data", "Where this instance keeps its local files: the secrets generated outside production and the demo's credentials.")),
    AUTH_SECRET: z
      .string()
      .min(32, "AUTH_SECRET must be at least 32 characters")
      .meta(doc("secrets", "Signs session cookies; at least 32 characters.", GENERATED)),
    AUDIT_KEY: base64Key32("AUDIT_KEY").meta(doc("secrets", "The audit chain's HMAC key: 32 random bytes, base64.", GENERATED)),
    ENCRYPTION_KEY: base64Key32("ENCRYPTION_KEY").meta(doc("secrets", "Encrypts secrets at rest (AES-256-GCM): 32 random bytes, base64.", GENERATED)),
    RECEIPT_SIGNING_KEY: z
      .string()
      .min(1)
      .meta(
        doc(
          "secrets",
          "The first Ed25519 key that signs consume receipts, as a private JWK (JSON); later keys are made with `receipt-key rotate`.",
          GENERATED,
        ),
      ),
    AUTH_CREDENTIALS: flag.meta(doc("sign-in", "`1` turns on the email and password sign-in.", "`1` in local mode")),
    AUTH_OIDC_ISSUER: z
      .url()
      .optional()
      .meta(
        doc(
          "sign-in",
          "The company's identity provider (Okta, Entra ID, Google Workspace, Keycloak…), with `AUTH_OIDC_ID` and `AUTH_OIDC_SECRET`. Its redirect URI is `APP_URL/api/auth/callback/oidc`.",
        ),
      ),
    AUTH_OIDC_ID: z.string().min(1).optional().meta(doc("sign-in", "The OIDC client id.")),
    AUTH_OIDC_SECRET: z.string().min(1).optional().meta(doc("sign-in", "The OIDC client secret.")),
    AUTH_OIDC_NAME: z.string().min(1).default("Single sign-on").meta(doc("sign-in", "The sign-in button's label.")),
    AUTH_OIDC_TRUST_EMAILS: flag.meta(
      doc("sign-in", "`1` links a first OIDC sign-in to an existing user by email even without `email_verified` (Entra ID does not send it)."),
    ),
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
    RECEIPT_TTL_SECONDS: z.coerce
      .number({ error: "RECEIPT_TTL_SECONDS must be a whole number of seconds" })
      .int("RECEIPT_TTL_SECONDS must be a whole number of seconds")
      .min(60, "RECEIPT_TTL_SECONDS must be at least 60")
      .max(86_400, "RECEIPT_TTL_SECONDS must be at most 86400 (a day)")
      .default(600)
      .meta(
        doc(
          "executors",
          "How long a consume receipt is good for, in seconds (its `exp` claim); the clients refuse to run a call on an expired one (docs/api.md).",
        ),
      ),
    EXECUTION_REPORT_GRACE_SECONDS: z.coerce
      .number({ error: "EXECUTION_REPORT_GRACE_SECONDS must be a whole number of seconds" })
      .int("EXECUTION_REPORT_GRACE_SECONDS must be a whole number of seconds")
      .min(0, "EXECUTION_REPORT_GRACE_SECONDS must be 0 or more")
      .max(2_592_000, "EXECUTION_REPORT_GRACE_SECONDS must be at most 2592000 (30 days)")
      .default(3600)
      .meta(
        doc(
          "executors",
          "How long after an approved consume the executor may take to report the run (`POST …/result`) before admins see the request at `/admin/executions` (docs/executions.md).",
        ),
      ),
    CALLBACK_RETRY_BASE_MS: retryBaseMs().meta(
      doc("executors", "The first retry delay of a callback that failed, in milliseconds; later ones double, capped at an hour, for over 24 hours."),
    ),
    // Unset means "allowed only outside production".
    CALLBACK_ALLOW_LOOPBACK: z
      .enum(["0", "1", "true", "false", ""])
      .optional()
      .transform((v) => (v === undefined || v === "" ? undefined : v === "1" || v === "true"))
      .meta(
        doc(
          "executors",
          "`1` lets callback URLs (and Web Push endpoints) reach loopback: `127.0.0.0/8`, `::1`, `localhost`. Link-local and cloud-metadata addresses are always refused (docs/security.md).",
          "`1` in local mode",
        ),
      ),
    CALLBACK_DENY_PRIVATE: flag.meta(
      doc("executors", "`1` also refuses callback URLs on private ranges: `10/8`, `172.16/12`, `192.168/16`, `100.64/10`, `fc00::/7`."),
    ),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, "SMTP_URL must be an smtp:// or smtps:// URL")
      .optional()
      .meta(doc("notifications", "Email to the reviewers who may decide: `smtp://` or `smtps://`, credentials in the URL (docs/notifications.md).")),
    SMTP_FROM: z.string().min(3).default("Countersign <countersign@localhost>").meta(doc("notifications", "The emails' sender.")),
    NOTIFY_LOCAL_MAILBOX: flag.meta(
      doc("notifications", "Without `SMTP_URL`: `1` keeps email in the local mailbox at `/admin/outbox`.", "`1` in local mode"),
    ),
    NOTIFY_WEBHOOK_URL: z
      .url()
      .optional()
      .meta(
        doc(
          "notifications",
          "One signed `approval.needs_review` event per new request, for Teams, PagerDuty or an on-call tool (Standard Webhooks; docs/notifications.md).",
        ),
      ),
    NOTIFY_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, "NOTIFY_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more")
      .optional()
      .meta(doc("notifications", "Signs those events: `whsec_` and a base64 key of 24 bytes or more. Required with `NOTIFY_WEBHOOK_URL`.")),
    NOTIFY_RETRY_BASE_MS: retryBaseMs().meta(
      doc(
        "notifications",
        "The first retry delay of a notification that could not be sent, in milliseconds; later ones double, capped at an hour, for over 24 hours.",
      ),
    ),
    VAPID_PUBLIC_KEY: z
      .string()
      .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 65 && v.startsWith("B"), {
        message: "VAPID_PUBLIC_KEY must be an uncompressed P-256 public key (65 bytes), base64url",
      })
      .optional()
      .meta(
        doc(
          "web push",
          "Web Push's P-256 public key, base64url (`npx web-push generate-vapid-keys` makes a pair). Both keys or neither: without them push is off and `/settings` says so.",
          GENERATED,
        ),
      ),
    VAPID_PRIVATE_KEY: z
      .string()
      .refine((v) => isBase64Url(v) && Buffer.from(v, "base64url").length === 32, {
        message: "VAPID_PRIVATE_KEY must be a P-256 private key (32 bytes), base64url",
      })
      .optional()
      .meta(doc("web push", "Its private key (32 bytes, base64url).", GENERATED)),
    VAPID_SUBJECT: z
      .string()
      .regex(/^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s/]+(\/\S*)?)$/, "VAPID_SUBJECT must be a mailto: address or an https: URL")
      .default("mailto:countersign@localhost")
      .meta(
        doc(
          "web push",
          "Whom push services may contact about this sender (RFC 8292): a `mailto:` address or an `https:` URL. Set a real one in production: Apple refuses `localhost`.",
        ),
      ),
    PUSH_ALLOW_ANY_PORT: flag.meta(
      doc(
        "web push",
        "`1` lets push endpoints use a port other than 443 (a push service of your own, a test stand-in). Endpoints are always `https:`, never private, link-local or metadata addresses, loopback only with `CALLBACK_ALLOW_LOOPBACK`.",
      ),
    ),
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
    METRICS_TOKEN: z
      .string()
      .min(32, "METRICS_TOKEN must be at least 32 characters (e.g. `openssl rand -hex 32`)")
      .max(512, "METRICS_TOKEN must be at most 512 characters")
      .regex(/^[A-Za-z0-9._~+/=-]+$/, "METRICS_TOKEN may hold only letters, digits and . _ ~ + / = - (a bearer token)")
      .optional()
      .meta(
        doc(
          "operations",
          "The bearer token Prometheus scrapes `GET /api/metrics` with (32 to 512 characters); unset, the route answers 404 (docs/operations.md, Metrics).",
          "metrics off",
        ),
      ),
    COUNTERSIGN_BENCH: flag.meta(
      doc("operations", "`1` turns on the benchmark's own routes (`app/api/bench/*`, 404 otherwise). Never in production."),
    ),
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
