import { checkReadiness } from "@/lib/db/readiness";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const r = await checkReadiness();
  return Response.json(r.ready ? { status: "ready" } : { status: "not-ready", reason: r.reason, pending: r.pending }, {
    status: r.ready ? 200 : 503,
    headers: { "cache-control": "no-store", ...(r.ready ? {} : { "retry-after": "5" }) },
  });
}
