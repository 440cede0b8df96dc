// GET /admin/audit/export[?since=ISO]: the audit chain as JSON Lines, streamed
// in batches (constant memory). Admins only (withSession: current state).
import { z } from "zod";
import { withSession } from "@/lib/auth/guards";
import { eventsInOrder } from "@/lib/audit/verify-chain";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

async function exportAudit(req: Request): Promise<Response> {
  const sinceRaw = new URL(req.url).searchParams.get("since");
  const since = sinceRaw ? z.iso.datetime({ offset: true, local: true }).safeParse(sinceRaw) : null;
  if (since && !since.success) return Response.json({ error: "invalid-request" }, { status: 422 });

  const events = eventsInOrder(since?.data ? new Date(since.data) : undefined);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await events.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(JSON.stringify({ ...next.value, data: JSON.parse(next.value.data) as unknown }) + "\n"));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="countersign-audit-${new Date().toISOString().slice(0, 10)}.jsonl"`,
      "cache-control": "no-store",
    },
  });
}

export const GET = loggedRoute("audit.export", withSession("admin:audit", exportAudit));
