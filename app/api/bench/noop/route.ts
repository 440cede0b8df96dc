// Benchmark baseline (issue: benchmark): a constant JSON body, no database,
// no session. Exists only when COUNTERSIGN_BENCH is set; otherwise 404.
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

const BODY = { ok: true, bench: "noop" } as const;

export function GET(): Response {
  if (!env().COUNTERSIGN_BENCH) return Response.json({ error: "not-found" }, { status: 404 });
  return Response.json(BODY, { headers: { "cache-control": "no-store" } });
}
