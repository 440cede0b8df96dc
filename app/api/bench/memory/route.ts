// Benchmark diagnostics (issue: benchmark): this process's memory as Node
// reports it (V8 heap and its spaces, external buffers, RSS), to explain the resident-memory
// figure; `?gc=1` first runs a full garbage collection, to tell live objects
// from garbage not yet collected. Exists only when COUNTERSIGN_BENCH is set;
// otherwise 404.
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

function fullGc(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

export function GET(req: Request): Response {
  if (!env().COUNTERSIGN_BENCH) return Response.json({ error: "not-found" }, { status: 404 });
  if (new URL(req.url).searchParams.get("gc") === "1") fullGc();
  const m = process.memoryUsage();
  const mib = (n: number) => Math.round((n / 1048576) * 10) / 10;
  // Per V8 space (new, old, code, large objects, …): which part of the heap holds the memory.
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: mib(s.space_size), used: mib(s.space_used_size) }]));
  return Response.json(
    {
      rss: mib(m.rss),
      heapTotal: mib(m.heapTotal),
      heapUsed: mib(m.heapUsed),
      external: mib(m.external),
      arrayBuffers: mib(m.arrayBuffers),
      spaces,
    },
    { headers: { "cache-control": "no-store" } },
  );
}
