// Structured JSON logs on stdout, one line per event. Callers pass ids, codes
// and counts; never argument values, secrets or request bodies. Strings are
// JSON-encoded, so a newline in a value cannot forge a log line.
import { logLevel, type LogLevel as Level } from "./env";
import { currentRequestId } from "./request-context";

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  return ORDER[logLevel()];
}

function write(level: Level, msg: string, fields: Record<string, unknown> = {}) {
  if (ORDER[level] < threshold()) return;
  const requestId = currentRequestId();
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...(requestId ? { requestId } : {}), ...fields }) + "\n");
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};

/**
 * The error's class and codes only: messages can carry data (e.g. SQL values).
 * For database errors that includes the driver adapter's error kind (e.g.
 * "ConnectionClosed") and the PostgreSQL SQLSTATE, which carry no values.
 */
export function errorFields(e: unknown): Record<string, unknown> {
  if (e instanceof Error) {
    const code = "code" in e ? (e as { code: unknown }).code : undefined;
    const adapter = adapterCauseOf(e);
    return {
      errorClass: e.name,
      errorCode: typeof code === "string" ? code : undefined,
      errorKind: typeof adapter?.kind === "string" ? adapter.kind : undefined,
      sqlState: typeof adapter?.originalCode === "string" ? adapter.originalCode : undefined,
    };
  }
  return { errorClass: typeof e };
}

/** A driver adapter error's payload: on the DriverAdapterError itself, or inside a Prisma error. */
function adapterCauseOf(e: Error): { kind?: unknown; originalCode?: unknown } | undefined {
  const wrapped = (e as { meta?: { driverAdapterError?: { cause?: unknown } } }).meta?.driverAdapterError?.cause;
  const cause = e.name === "DriverAdapterError" ? e.cause : wrapped;
  return typeof cause === "object" && cause !== null ? (cause as { kind?: unknown; originalCode?: unknown }) : undefined;
}
