// Is this error "the database cannot be reached right now" (retry later) rather
// than a bug? Such failures become a retryable 503, never a 500. Prisma reports
// them in several shapes: its own connection codes, the driver adapter's error
// kind (a connection reset mid-query surfaces as a raw-query P2010), a
// PostgreSQL SQLSTATE of class 08 or 57P0x, or a plain error from the pool.

const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);
const MESSAGES = /connection error and is not queryable|Connection terminated|SQLITE_BUSY|database is locked/i;

type ErrorLike = { code?: unknown; message?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } }; cause?: unknown };

function isPostgresUnavailableState(state: unknown): boolean {
  // 08xxx connection exception; 57P01-03 shutdown / cannot connect now; 53300 too many connections.
  return typeof state === "string" && (state.startsWith("08") || /^57P0[123]$/.test(state) || state === "53300");
}

export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (typeof e !== "object" || e === null || depth > 5) return false;
  const err = e as ErrorLike;
  const code = typeof err.code === "string" ? err.code : "";
  if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || isPostgresUnavailableState(code)) return true;
  const cause = err.meta?.driverAdapterError?.cause;
  if (cause && (ADAPTER_KINDS.has(String(cause.kind)) || isPostgresUnavailableState(cause.originalCode))) return true;
  if (typeof err.message === "string" && MESSAGES.test(err.message)) return true;
  return isDatabaseUnavailable(err.cause, depth + 1);
}
