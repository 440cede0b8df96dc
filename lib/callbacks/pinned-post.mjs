// One HTTP(S) POST to addresses already resolved and checked
// (callback-target.ts): the request's own DNS lookup is replaced by one that
// answers only with those addresses, so what is connected to is exactly what
// was checked. TLS still verifies the certificate against the host name.
// Redirects are never followed (node:http does not follow them). Plain
// JavaScript: the sending thread (lib/notifications/send-worker.mjs) loads it
// as it is, outside the app's build.
//
// Connections are kept alive and reused, one pool per scheme, host name, port
// and set of checked addresses: a socket serves again only a request for the
// same name (so TLS checked the same certificate name) that was checked to the
// same addresses. A push service or a callback receiver then costs one TLS
// handshake per connection, not one per message.
import http from "node:http";
import https from "node:https";

function pinnedLookup(addresses) {
  return (_hostname, options, callback) => {
    const family = typeof options === "number" ? options : (options.family ?? 0);
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (wanted.length === 0) {
      callback(Object.assign(new Error("no checked address of that family"), { code: "ENOTFOUND" }), "", 0);
      return;
    }
    if (typeof options === "object" && options.all)
      callback(
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, wanted[0].address, wanted[0].family);
  };
}

/** At most this many pools; the least recently used is dropped (its idle sockets close on their own). */
const MAX_POOLS = 64;
/** An idle kept-alive socket is closed after this long. */
const IDLE_MS = 15_000;
/** What is read of an answer's body (to free its socket for the next request) before the socket is closed instead. */
const DRAIN_LIMIT = 64 * 1024;

const pools = new Map();

/** The pool for this destination; the Map's order is the pools' last use. */
function poolFor(url, hostname, addresses) {
  const key = JSON.stringify([url.protocol, hostname, url.port, addresses.map((a) => `${a.family}/${a.address}`).sort()]);
  let agent = pools.get(key);
  if (agent) pools.delete(key);
  else {
    const Agent = url.protocol === "https:" ? https.Agent : http.Agent;
    agent = new Agent({ keepAlive: true, maxFreeSockets: 8, timeout: IDLE_MS, lookup: pinnedLookup(addresses) });
  }
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) pools.delete(pools.keys().next().value);
  return agent;
}

/** Closes every pooled connection (the sending thread's end). */
export function closePinnedConnections() {
  for (const agent of pools.values()) agent.destroy();
  pools.clear();
}

/** Sends the request; resolves with the status code. The answer's body is read and dropped, or its connection closed if it is long. */
export function pinnedPost(url, hostname, addresses, headers, body, signal) {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      {
        method: "POST",
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(addresses),
        agent: poolFor(url, hostname, addresses),
        signal,
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        let read = 0;
        res.on("data", (chunk) => {
          read += chunk.length;
          if (read > DRAIN_LIMIT) res.destroy();
        });
        res.on("error", () => {});
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
