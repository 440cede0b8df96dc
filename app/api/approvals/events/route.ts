// Live queue updates as Server-Sent Events, for signed-in reviewers only:
// the session is checked here (never left to middleware), then the stream
// (lib/queue/event-stream.ts) re-checks it on every heartbeat and sends only
// ids of requests the viewer may see. `?since=N` (the version the page was
// rendered at) makes it report at once a change made since the render.
import { z } from "zod";
import { withSession } from "@/lib/auth/guards";
import type { CurrentUser } from "@/lib/auth/current-user";
import { EVENT_STREAM_HEADERS, openQueueEventStream } from "@/lib/queue/event-stream";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

const sinceSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

async function streamQueueEvents(req: Request, user: CurrentUser): Promise<Response> {
  const sinceParam = new URL(req.url).searchParams.get("since");
  const since = sinceParam === null ? undefined : sinceSchema.safeParse(sinceParam).data;
  const stream = await openQueueEventStream(user, { since, signal: req.signal });
  return new Response(stream, { headers: EVENT_STREAM_HEADERS });
}

export const GET = loggedRoute("queue.events", withSession("queue:view", streamQueueEvents));
