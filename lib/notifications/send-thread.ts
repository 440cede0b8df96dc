// The sending thread (send-worker.mjs) from the main thread's side: a
// request in, a promise of its answer out. Started on first use.
import "server-only";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { ResolvedAddress } from "../callbacks/callback-target";
import { env } from "../env";

/** Loaded as it is, outside the app's build: `npm start` (and every test) runs from the app's directory. */
const SEND_WORKER = join(process.cwd(), "lib", "notifications", "send-worker.mjs");

export type SmtpMessage = { from?: string; to: string; subject: string; text: string; html: string; messageId: string };
export type PinnedPostRequest = {
  url: string;
  hostname: string;
  addresses: ResolvedAddress[];
  headers: Record<string, string>;
  body: Uint8Array;
  timeoutMs: number;
};
type Reply = { id: number; ok: true; statusCode?: number } | { id: number; ok: false; name: string; code?: string };
type Waiting = { resolve: (statusCode: number | undefined) => void; reject: (e: Error) => void };
type Thread = { worker: Worker; waiting: Map<number, Waiting>; next: number };
let thread: Thread | undefined;

/** Should the thread stop, what it had fails (the outbox retries it) and the next request starts another. */
function sendThread(): Thread {
  if (thread) return thread;
  const t: Thread = { worker: new Worker(SEND_WORKER, { workerData: { smtpUrl: env().SMTP_URL } }), waiting: new Map(), next: 0 };
  t.worker.on("message", (r: Reply) => {
    const w = t.waiting.get(r.id);
    if (!w) return;
    t.waiting.delete(r.id);
    if (r.ok) w.resolve(r.statusCode);
    else w.reject(Object.assign(new Error("not sent"), { name: r.name, code: r.code }));
  });
  const failAll = (e: Error) => {
    if (thread === t) thread = undefined;
    for (const w of t.waiting.values()) w.reject(e);
    t.waiting.clear();
  };
  t.worker.on("error", (e) => failAll(Object.assign(new Error("the sending thread failed"), { name: e.name })));
  t.worker.on("exit", () => failAll(Object.assign(new Error("the sending thread stopped"), { code: "EWORKEREXIT" })));
  // It keeps no process alive on its own.
  t.worker.unref();
  thread = t;
  return t;
}

function ask(request: { smtp: SmtpMessage } | { post: PinnedPostRequest }): Promise<number | undefined> {
  const t = sendThread();
  const id = ++t.next;
  return new Promise((resolve, reject) => {
    t.waiting.set(id, { resolve, reject });
    t.worker.postMessage({ id, ...request });
  });
}

/** Hands one message to the SMTP server of SMTP_URL; rejects if it is not accepted. */
export async function sendSmtp(mail: SmtpMessage): Promise<void> {
  await ask({ smtp: mail });
}

/** One POST to checked addresses only (lib/callbacks/pinned-post.mjs); resolves with the status code. */
export async function postPinned(request: PinnedPostRequest): Promise<number> {
  return (await ask({ post: request })) ?? 0;
}

/** Closes the kept-open SMTP connections and ends the thread (on shutdown); the next request starts afresh. */
export function stopSendThread(): void {
  if (!thread) return;
  thread.worker.postMessage({ close: true });
  thread = undefined;
}
