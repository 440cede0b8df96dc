import { checkReadiness } from "@/lib/db/readiness";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

async function readiness(): Promise<Response> {
  const r = await checkReadiness();
  return Response.json(r.ready ? { status: "ready" } : { status: "not-ready", reason: r.reason, pending: r.pending }, {
    status: r.ready ? 200 : 503,
    headers: { "cache-control": "no-store", ...(r.ready ? {} : { "retry-after": "5" }) },
  });
}

export const GET = loggedRoute("ready", readiness);
