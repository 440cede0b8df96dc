// Fixed-window counters kept in the database, so every app instance sharing
// it enforces one limit. One upsert per hit: no read-then-write race.
import "server-only";
import type { Tx } from "./db/client";
import { type Sql } from "./db/sql";

export type RateLimitResult = { allowed: true } | { allowed: false; retryAfter: number };

export async function hitRateLimit(sql: Sql, key: string, limit: number, windowSeconds = 60): Promise<RateLimitResult> {
  const now = Math.floor(Date.now() / 1000);
  const windowStart = now - (now % windowSeconds);
  const rows = await sql.all<{ count: number | bigint }>(
    `INSERT INTO rate_limit_buckets (key, window_start, count) VALUES (?, ?, 1)
     ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_buckets.count + 1
     RETURNING count`,
    [key, windowStart],
  );
  const count = Number(rows[0]?.count ?? 0);
  if (count <= limit) return { allowed: true };
  return { allowed: false, retryAfter: Math.max(1, windowStart + windowSeconds - now) };
}

export async function pruneRateLimits(tx: Tx, olderThanSeconds = 86_400): Promise<number> {
  const cutoff = Math.floor(Date.now() / 1000) - olderThanSeconds;
  const { count } = await tx.rateLimitBucket.deleteMany({ where: { windowStart: { lt: cutoff } } });
  return count;
}
