// One HTTP(S) POST to addresses already resolved and checked
// (callback-target.ts): the request's own DNS lookup is replaced by one that
// answers only with those addresses, so what is connected to is exactly what
// was checked. TLS still verifies the certificate against the host name.
// Redirects are never followed (node:http does not follow them). Plain
// JavaScript: the sending thread (lib/notifications/send-worker.mjs) loads it
// as it is, outside the app's build.
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

/** Sends the request; resolves with the status code. The body of the answer is discarded unread. */
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
        agent: false, // no pooled socket from an earlier, differently checked request
        signal,
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
