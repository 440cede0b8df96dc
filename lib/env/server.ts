// Server: how the app listens, where it is reached, how much it may use, what it logs.
import { z } from "zod";
import { doc } from "./groups";

const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Also read on its own by logLevel() (lib/env.ts), before the rest validates. */
export const logLevelSchema = z.enum(LOG_LEVELS).default("info");

export const serverVariables = {
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
};
