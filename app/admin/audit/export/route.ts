// GET /admin/audit/export[?since=ISO]: the audit chain as JSON Lines, streamed
// in batches (constant memory). With the audit page's filter (type, actor,
// approvalId, from, to) only the events it selects. Admins only (withSession: current state).
import { z } from "zod";
import { withSession } from "@/lib/auth/guards";
import { eventsInOrder } from "@/lib/audit/verify-chain";
import { AUDIT_FILTERS, auditQuerySchema, filteredEventsInOrder } from "@/lib/audit/find-events";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

async function exportAudit(req: Request): Promise<Response> {
  const params = new URL(req.url).searchParams;
  const sinceRaw = params.get("since");
  const since = sinceRaw ? z.iso.datetime({ offset: true, local: true }).safeParse(sinceRaw) : null;
  if (since && !since.success) return Response.json({ error: "invalid-request" }, { status: 422 });
  const filter = Object.fromEntries(AUDIT_FILTERS.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const filtered = Object.keys(filter).length > 0;
  if (filtered && (since || !auditQuerySchema.safeParse(filter).success)) return Response.json({ error: "invalid-request" }, { status: 422 });

  const events = filtered ? filteredEventsInOrder(filter) : eventsInOrder(since?.data ? new Date(since.data) : undefined);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await events.next();
      if (next.done) return controller.close();
      const e = next.value;
      const at = e.at instanceof Date ? e.at.toISOString() : e.at;
      controller.enqueue(encoder.encode(JSON.stringify({ ...e, at, data: JSON.parse(e.data) as unknown }) + "\n"));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="countersign-audit-${filtered ? "filtered-" : ""}${new Date().toISOString().slice(0, 10)}.jsonl"`,
      "cache-control": "no-store",
    },
  });
}

export const GET = loggedRoute("audit.export", withSession("admin:audit", exportAudit));
