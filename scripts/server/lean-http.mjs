// The agents' routes served without Next.js (lib/http/lean-routes.ts): the
// Node request as a standard Request for the route's own handler, and its
// Response written back, with the headers Next.js would have added. A
// request the published table does not match, or any before it is
// published, goes to Next.js unchanged.
import { SECURITY_HEADERS } from "./security-headers.mjs";

const TABLE = Symbol.for("countersign.http.leanRoutes");

/** The handler for this request, or null: Next.js serves it. */
export function leanHandler(req) {
  const dispatch = globalThis[TABLE];
  if (!dispatch || !req.url) return null;
  const query = req.url.indexOf("?");
  return dispatch(req.method, query === -1 ? req.url : req.url.slice(0, query));
}

/** Serves one request with `handler`. Never rejects: a failure (none should: loggedRoute answers errors) is a 500. */
export async function serveLean(handler, req, res) {
  try {
    await answer(handler, req, res);
  } catch (err) {
    console.error(err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
    if (!req.complete) discardRest(req);
  }
}

async function answer(handler, req, res) {
  // A long-poll stops waiting when its client goes away (the state route reads req.signal).
  const gone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  const withBody = req.method !== "GET" && req.method !== "HEAD";
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const response = await handler(
    new Request(new URL(req.url, "http://localhost"), {
      method: req.method,
      headers,
      body: withBody ? bodyStream(req) : undefined,
      duplex: "half",
      signal: gone.signal,
    }),
  );
  // The agents' answers are small JSON documents: sent whole, with their length.
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.setHeader("content-length", body.length);
  res.end(body);
  // A refusal may come before the body was read (a 401, a 413): what is left
  // of it is read and dropped, as Node does for a request nobody reads, so
  // the next request on a kept-alive connection is parsed.
  if (!req.complete) discardRest(req);
}

/**
 * The request's body as a web stream, read from Node only as the handler
 * reads it. Node drops an unread body itself only when nobody listened to
 * it; this stream listens, so what it leaves unread is dropped by hand.
 */
function bodyStream(req) {
  return new ReadableStream({
    start(controller) {
      req.pause();
      req.on("data", (chunk) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (controller.desiredSize !== null && controller.desiredSize <= 0) req.pause();
      });
      req.once("end", () => closeQuietly(controller));
      req.once("error", (err) => controller.error(err));
    },
    pull() {
      req.resume();
    },
    cancel() {
      discardRest(req);
    },
  });
}

function discardRest(req) {
  req.removeAllListeners("data");
  req.resume();
}

/** Closing a stream the handler cancelled throws; there is nothing left to tell it. */
function closeQuietly(controller) {
  try {
    controller.close();
  } catch {
    // cancelled already
  }
}
