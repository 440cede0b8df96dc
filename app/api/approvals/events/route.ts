// Live queue updates as Server-Sent Events, for signed-in reviewers only.
// The session is checked here (never left to middleware) and again on every
// heartbeat, so a signed-out or disabled account's stream ends within one.
// Events carry ids and a version number, nothing else, and only ids of requests
// the viewer may see (lib/reviews/visibility.ts); a change to nothing they see
// is not sent:
//   event: ready    data: {"version":N}
//   event: changed  data: {"version":N,"ids":["apr_…"],"more":false}
// `?since=N` (the version the page was rendered at) makes the stream report
// at once a change that happened between the render and the connection.
import { z } from "zod";
import { getCurrentUser } from "@/lib/auth/current-user";
import { sessionUser } from "@/lib/auth/sessions";
import { getQueueVersion } from "@/lib/approvals/find-queue";
import { json } from "@/lib/http/respond";
import { errorFields, log } from "@/lib/log";
import { loadViewer, visibleTo, type Viewer } from "@/lib/reviews/visibility";
import { subscribeQueueChanges, type QueueChange } from "./queue-watch";
import { shutdownSignal } from "@/lib/shutdown";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

const HEARTBEAT_MS = 15_000;
const sinceSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

async function streamQueueEvents(req: Request): Promise<Response> {
  const user = await getCurrentUser();
  if (!user) return json({ error: "unauthorized" }, 401);
  let viewer: Viewer | null = await loadViewer(user.id);
  const sinceParam = new URL(req.url).searchParams.get("since");
  const since = sinceParam === null ? undefined : sinceSchema.safeParse(sinceParam).data;

  const encoder = new TextEncoder();
  let end = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          end();
        }
      };
      const event = (name: string, data: unknown) => send(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);

      const report = (change: QueueChange) => {
        const ids = change.ids.filter((id) => {
          const facts = change.facts.get(id);
          return facts !== undefined && visibleTo(viewer, facts);
        });
        if (ids.length > 0 || change.more || change.rolesChanged) event("changed", { version: change.version, ids, more: change.more });
      };
      let pending = Promise.resolve();
      const unsubscribe = subscribeQueueChanges((change) => {
        // In order; a role change is applied before the ids it may hide or reveal are filtered.
        pending = pending
          .then(async () => {
            if (change.rolesChanged) viewer = await loadViewer(user.id);
            report(change);
          })
          .catch(() => end());
      });
      const heartbeat = setInterval(() => {
        void sessionUser(user.sessionId, user.id)
          .then((still) => (still ? send(": heartbeat\n\n") : end()))
          .catch(() => send(": heartbeat\n\n"));
      }, HEARTBEAT_MS);
      end = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        unsubscribe();
        req.signal.removeEventListener("abort", end);
        shutdownSignal().removeEventListener("abort", end);
        log.debug("queue events stream ended", { userId: user.id });
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      req.signal.addEventListener("abort", end);
      // A stopping instance ends its streams; browsers reconnect (to another instance).
      shutdownSignal().addEventListener("abort", end);
      if (req.signal.aborted || shutdownSignal().aborted) return end();

      log.debug("queue events stream started", { userId: user.id });
      send("retry: 3000\n\n");
      getQueueVersion()
        .then((version) => {
          event("ready", { version });
          if (since !== undefined && version !== since) event("changed", { version, ids: [], more: true });
        })
        .catch((e: unknown) => {
          log.warn("queue events: cannot read the queue version", errorFields(e));
          end();
        });
    },
    cancel() {
      end();
    },
  });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: keeps compression from buffering the stream.
      "cache-control": "no-cache, no-store, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

export const GET = loggedRoute("queue.events", streamQueueEvents);
