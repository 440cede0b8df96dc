// One signed-in reviewer's live queue updates, as Server-Sent Events. The
// route authorizes and hands the stream out; the session is checked again on
// every heartbeat here, so a signed-out or disabled account's stream ends
// within one. Events carry ids and a version number, nothing else, and only
// ids of requests the viewer may see (lib/reviews/visibility.ts); a change to
// nothing they see is not sent:
//   event: ready    data: {"version":N}
//   event: changed  data: {"version":N,"ids":["apr_…"],"more":false}
// `since` (the version the page was rendered at) makes the stream report at
// once a change that happened between the render and the connection.
import "server-only";
import { sessionUser } from "../auth/sessions";
import { errorFields, log } from "../log";
import { loadViewer, visibleTo, type Viewer } from "../reviews/visibility";
import { shutdownSignal } from "../shutdown";
import { getQueueVersion, subscribeQueueChanges, type QueueChange } from "./live-feed";

const HEARTBEAT_MS = 15_000;

/** The response headers of an event stream. no-transform keeps compression from buffering it. */
export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-store, no-transform",
  "x-accel-buffering": "no",
} as const;

export async function openQueueEventStream(
  user: { id: string; sessionId: string },
  options: { since?: number; signal: AbortSignal },
): Promise<ReadableStream<Uint8Array>> {
  const { since, signal } = options;
  let viewer: Viewer | null = await loadViewer(user.id);
  const encoder = new TextEncoder();
  let end = () => {};
  return new ReadableStream<Uint8Array>({
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
        signal.removeEventListener("abort", end);
        shutdownSignal().removeEventListener("abort", end);
        log.debug("queue events stream ended", { userId: user.id });
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      signal.addEventListener("abort", end);
      // A stopping instance ends its streams; browsers reconnect (to another instance).
      shutdownSignal().addEventListener("abort", end);
      if (signal.aborted || shutdownSignal().aborted) return end();

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
}
