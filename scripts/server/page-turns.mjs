// Page renders take turns (scripts/server/serve.mjs). A page is rendered on
// the one event loop every request shares; eight heavy pages at once (a run
// of look-alike requests, docs/security.md) would each get a slice of every
// turn of it, and the health check, the API and the executors' consumes
// would wait behind all eight. So at most `limit` page renders run at once;
// the others wait in arrival order without using the CPU. Only page GETs
// take turns: API routes, server actions (POST), static files and Next's
// own assets never wait. A turn ends when the response is finished or the
// connection closes, or after `maxHoldMs` (a render stuck on something
// must not stop every other page).

/** Paths that are not page renders: API and SCIM routes, Next's assets, files with an extension (icons, the manifest, the service worker). */
const NOT_A_PAGE = /^\/(?:api|scim|_next)(?:\/|$)|\.[A-Za-z0-9]+$/;

/** Whether the request renders a page (and so takes a turn). */
export function isPageRender(method, url) {
  if (method !== "GET" && method !== "HEAD") return false;
  const path = (url ?? "/").split("?", 1)[0];
  return !NOT_A_PAGE.test(path);
}

/**
 * @param {{ limit: number, maxHoldMs?: number }} options
 * @returns {{ admit: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, render: () => void) => void, running: () => number, waiting: () => number }}
 */
export function pageTurns({ limit, maxHoldMs = 30_000 }) {
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
    // A client that gave up while waiting is not rendered for.
    res.once("close", () => (closed = true));
    queue.push({ start, gone: () => closed });
    next();
  };

  return { admit, running: () => running, waiting: () => queue.length };
}
