// Is this error "the database cannot be reached right now" (retry later) rather
// than a bug? Such failures become a retryable 503, never a 500. They come in
// several shapes, all seen against a real PostgreSQL behind a connection that
// is cut (test/db/database-unavailable.postgresql.test.ts): Prisma's own
// connection codes; a Prisma error carrying the driver adapter's error in
// `meta.driverAdapterError`; the adapter's DriverAdapterError itself, unwrapped
// (a raw statement inside an interactive transaction), whose `cause` holds the
// kind; a PostgreSQL SQLSTATE of class 08 or 57P0x; a plain error from pg's pool.
import "server-only";

const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);
const MESSAGES = /connection error and is not queryable|Connection terminated|SQLITE_BUSY|database is locked/i;

type ErrorLike = {
  code?: unknown;
  message?: unknown;
  /** The driver adapter's error kind, on a DriverAdapterError's `cause`. */
  kind?: unknown;
  originalCode?: unknown;
  meta?: { driverAdapterError?: unknown };
  cause?: unknown;
};

function isPostgresUnavailableState(state: unknown): boolean {
  // 08xxx connection exception; 57P01-03 shutdown / cannot connect now; 53300 too many connections.
  return typeof state === "string" && (state.startsWith("08") || /^57P0[123]$/.test(state) || state === "53300");
}

export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (typeof e !== "object" || e === null || depth > 5) return false;
  const err = e as ErrorLike;
  const code = typeof err.code === "string" ? err.code : "";
  if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || isPostgresUnavailableState(code)) return true;
  if (ADAPTER_KINDS.has(String(err.kind)) || isPostgresUnavailableState(err.originalCode)) return true;
  if (typeof err.message === "string" && MESSAGES.test(err.message)) return true;
  return isDatabaseUnavailable(err.meta?.driverAdapterError, depth + 1) || isDatabaseUnavailable(err.cause, depth + 1);
}
