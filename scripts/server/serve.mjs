// The HTTP server Countersign runs in (spawned by scripts/start.ts): Next.js's
// documented custom server (`next({...}).getRequestHandler()`), so that every
// request carries the client's address as the socket saw it, which Next's own
// route handlers cannot see. The header is always overwritten: a copy the
// client sent never survives. Shutdown mirrors `next start`: on SIGTERM or
// SIGINT stop accepting connections, let requests in flight finish, close
// Next, exit.
//
// The routes agent services call are served by their handlers directly,
// without Next's per-request machinery (scripts/server/lean-http.mjs).
//
// Page renders take turns (scripts/server/page-turns.mjs): at most
// <page-renders> at once, so that heavy pages cannot hold up the health
// check, the API or each other's first bytes for long.
//
// Usage: node scripts/server/serve.mjs <port> <trusted-proxy-hops> [<page-renders>]
import { createServer } from "node:http";
import next from "next";
import { clientAddressFrom } from "./client-address.mjs";
import { whenParentGone } from "./when-parent-gone.mjs";
import { pageTurns } from "./page-turns.mjs";
import { leanHandler, serveLean } from "./lean-http.mjs";

/** Keep in step with lib/http/client-address.ts. */
const CLIENT_ADDRESS_HEADER = "x-countersign-client-address";

const port = Number(process.argv[2]);
const hops = Number(process.argv[3] ?? "0");
const pageRenders = Number(process.argv[4] ?? "2");
if (!Number.isInteger(port) || !Number.isInteger(hops) || hops < 0 || !Number.isInteger(pageRenders) || pageRenders < 1) {
  process.stderr.write("usage: serve.mjs <port> <trusted-proxy-hops> [<page-renders>]\n");
  process.exit(2);
}

function stampClientAddress(req) {
  const address = clientAddressFrom(req.socket.remoteAddress, req.headers["x-forwarded-for"], hops);
  req.headers[CLIENT_ADDRESS_HEADER] = address;
  // Next reads req.headers; drop any client-sent copy from the raw list too.
  const raw = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== CLIENT_ADDRESS_HEADER) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  raw.push(CLIENT_ADDRESS_HEADER, address);
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
}

// As `next start` names its process (tools that look for the server by name find it).
process.title = "next-server (countersign)";

const app = next({ dev: false, dir: process.cwd(), port });
const handle = app.getRequestHandler();
await app.prepare();

const turns = pageTurns({ limit: pageRenders });
const server = createServer((req, res) => {
  stampClientAddress(req);
  // The agents' routes, without Next's per-request work (lean-http.mjs).
  const lean = leanHandler(req);
  if (lean) return void serveLean(lean, req, res);
  turns.admit(req, res, () =>
    handle(req, res).catch((err) => {
      console.error(err);
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    }),
  );
});
// An idle keep-alive connection must outlive the client's (a load balancer's,
// an agent SDK's): when the server closes first, a request sent on that
// connection in the same instant is reset. Node's default is 5 s.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.on("upgrade", (req, socket) => socket.destroy());
server.on("error", (err) => {
  console.error(err);
  process.exit(1);
});
server.listen(port, () => console.log(`countersign: server ready on port ${port}`));

let stopping = false;
const shutDown = (signal) => {
  if (stopping) return;
  stopping = true;
  // close() waits for requests in flight (Node closes idle keep-alive sockets);
  // lib/background.ts ends long-polls and streams on the same signal.
  // A kept-alive connection would hold close() for up to keepAliveTimeout:
  // close each one as soon as it is idle (requests in flight finish first).
  setInterval(() => server.closeIdleConnections(), 200).unref();
  server.close(() => {
    void app
      .close()
      .catch((err) => console.error(err))
      .finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
};
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => shutDown(signal));

// Orphaned (scripts/server/when-parent-gone.mjs): shut down as on SIGTERM,
// sent to itself so the app's own handlers run too, and exit regardless after 30 s.
whenParentGone(() => {
  setTimeout(() => process.exit(143), 30_000).unref();
  process.kill(process.pid, "SIGTERM");
});
