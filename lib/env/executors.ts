// Executors and callbacks: receipts, execution reports, callback retries and allowed targets.
import { z } from "zod";
import { doc } from "./groups";
import { flag, retryBaseMs } from "./values";

export const executorVariables = {
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
};
