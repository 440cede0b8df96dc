// Page renders take turns (scripts/server/serve.mjs). A page is rendered on
// the one event loop every request shares; eight heavy pages at once (a run
// of look-alike requests, docs/security.md) would each get a slice of every
// turn of it, and the health check, the API and the executors' consumes
// would wait behind all eight. So at most `limit` page renders run at once;
// the others wait in arrival order without using the CPU. Only page GETs
// take turns: API routes, server actions (POST), static files and Next's
// own assets never wait. A turn ends when the response is finished or the
// connection closes, or after `maxHoldMs` (a render stuck on something, or a
// client reading slowly, must not stop every other page). The wait is
// bounded too: past `maxWaiting` waiting, or after `maxWaitMs` in line, a
// page is answered 503 with Retry-After instead of piling up.

/** Paths that are not page renders: API and SCIM routes, Next's assets, the static files (icons, the manifest, the service worker). */
const NOT_A_PAGE = /^\/(?:api|scim|_next)(?:\/|$)|\.(?:ico|png|svg|jpg|webp|js|mjs|css|map|json|webmanifest|txt|xml|woff2?)$/i;

/** Whether the request renders a page (and so takes a turn). */
export function isPageRender(method, url) {
  if (method !== "GET" && method !== "HEAD") return false;
  const path = (url ?? "/").split("?", 1)[0];
  return !NOT_A_PAGE.test(path);
}

/** The answer to a page that could not get a turn in time. */
function busy(res) {
  if (res.headersSent || res.writableEnded) return;
  res.statusCode = 503;
  res.setHeader("retry-after", "5");
  res.setHeader("content-type", "text/plain; charset=utf-8");
  res.end("Countersign is busy: try again in a few seconds.\n");
}

/**
 * @param {{ limit: number, maxHoldMs?: number, maxWaiting?: number, maxWaitMs?: number }} options
 * @returns {{ admit: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, render: () => void) => void, running: () => number, waiting: () => number }}
 */
export function pageTurns({ limit, maxHoldMs = 30_000, maxWaiting = 256, maxWaitMs = 30_000 }) {
  if (!Number.isInteger(limit) || limit < 1) throw new Error("pageTurns: limit must be a whole number of at least 1");
  let running = 0;
  /** @type {Array<{ start: () => void, gone: () => boolean }>} */
  const queue = [];

  const next = () => {
    while (running < limit && queue.length > 0) {
      const waiter = queue.shift();
      if (!waiter.gone()) waiter.start();
    }
  };

  const admit = (req, res, render) => {
    if (!isPageRender(req.method, req.url)) return render();
    let ended = false;
    let closed = false;
    const start = () => {
      running++;
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        running--;
        next();
      };
      const timer = setTimeout(end, maxHoldMs);
      timer.unref();
      res.once("close", end);
      render();
    };
    if (running >= limit && queue.length >= maxWaiting) return busy(res);
    // A client that gave up while waiting is not rendered for.
    res.once("close", () => (closed = true));
    const waiter = { start: () => (clearTimeout(deadline), start()), gone: () => closed };
    const deadline = setTimeout(() => {
      const at = queue.indexOf(waiter);
      if (at === -1) return;
      queue.splice(at, 1);
      busy(res);
    }, maxWaitMs);
    deadline.unref();
    queue.push(waiter);
    next();
  };

  return { admit, running: () => running, waiting: () => queue.length };
}
