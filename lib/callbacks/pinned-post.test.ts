// The delivery connects to the checked addresses and nothing else: its host
// name is never looked up again (so a DNS answer that changes between check
// and connect cannot redirect it), yet the Host header still names the URL's
// host. Against a real local HTTP server.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedPost } from "./pinned-post.mjs";

describe("pinnedPost", () => {
  let server: Server;
  let port: number;
  const seen: Array<{ headers: IncomingHttpHeaders; body: string; url: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ headers: req.headers, body, url: req.url ?? "" });
        res.statusCode = req.url === "/redirect" ? 302 : 204;
        if (req.url === "/redirect") res.setHeader("location", "http://169.254.169.254/");
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => new Promise<void>((r) => server.close(() => r())));

  it("connects to the pinned address for a name that no resolver knows, and keeps the Host header", async () => {
    // ".invalid" never resolves (RFC 6761): reaching the server proves no lookup was made.
    const url = new URL(`http://hooks.invalid:${port}/cb?x=1`);
    const status = await pinnedPost(
      url,
      "hooks.invalid",
      [{ address: "127.0.0.1", family: 4 }],
      { "content-type": "application/json" },
      '{"a":1}',
      AbortSignal.timeout(5_000),
    );
    expect(status).toBe(204);
    expect(seen.at(-1)).toMatchObject({
      url: "/cb?x=1",
      body: '{"a":1}',
      headers: { host: `hooks.invalid:${port}`, "content-type": "application/json" },
    });
  });

  it("answers a redirect with its status and does not follow it", async () => {
    const before = seen.length;
    const status = await pinnedPost(
      new URL(`http://hooks.invalid:${port}/redirect`),
      "hooks.invalid",
      [{ address: "127.0.0.1", family: 4 }],
      {},
      "{}",
      AbortSignal.timeout(5_000),
    );
    expect(status).toBe(302);
    expect(seen.length).toBe(before + 1);
  });

  it("connects only to the pinned address, never to what the name resolves to now", async () => {
    await expect(
      pinnedPost(new URL(`http://localhost:${port}/cb`), "localhost", [{ address: "::1", family: 6 }], {}, "{}", AbortSignal.timeout(5_000)),
    ).rejects.toThrow();
  });
});

describe("pinnedPost's kept-alive connections", () => {
  let server: Server;
  let port: number;
  let connections = 0;
  /** Per request: the server's address it arrived on, and which connection (numbered as accepted) carried it. */
  const arrivals: Array<{ local: string; connection: number; url: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const connection = (req.socket as unknown as { n: number }).n;
      arrivals.push({ local: req.socket.localAddress ?? "", connection, url: req.url ?? "" });
      req.resume();
      req.on("end", () => {
        res.statusCode = 200;
        // A long answer: more than the client reads to free its socket.
        res.end(req.url === "/long" ? Buffer.alloc(1024 * 1024, "x") : "ok");
      });
    });
    server.on("connection", (socket) => ((socket as unknown as { n: number }).n = ++connections));
    // Every loopback address: two pinned addresses reach it, so a pool per address set shows.
    await new Promise<void>((r) => server.listen(0, "0.0.0.0", () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const post = (name: string, address: string, path = "/cb", signal = AbortSignal.timeout(5_000)) =>
    pinnedPost(new URL(`http://${name}:${port}${path}`), name, [{ address, family: 4 }], {}, "{}", signal);

  it("reuses a connection only for the same name and the same checked addresses", async () => {
    const first = arrivals.length;
    expect(await post("a.invalid", "127.0.0.1")).toBe(200);
    expect(await post("a.invalid", "127.0.0.1")).toBe(200);
    expect(await post("a.invalid", "127.0.0.2")).toBe(200);
    expect(await post("b.invalid", "127.0.0.1")).toBe(200);
    const seen = arrivals.slice(first);
    expect(seen.map((a) => a.local)).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.1"]);
    // The second went over the first's connection; another address, or another name, opened its own.
    expect(seen[1]!.connection).toBe(seen[0]!.connection);
    expect(new Set([seen[0]!.connection, seen[2]!.connection, seen[3]!.connection]).size).toBe(3);
  });

  it("leaves a reused connection alone when an earlier request's time limit runs out after its answer", async () => {
    const first = arrivals.length;
    expect(await post("c.invalid", "127.0.0.1", "/cb", AbortSignal.timeout(300))).toBe(200);
    await new Promise((r) => setTimeout(r, 600));
    expect(await post("c.invalid", "127.0.0.1")).toBe(200);
    const seen = arrivals.slice(first);
    expect(seen[1]!.connection).toBe(seen[0]!.connection);
  });

  it("closes the connection of an answer too long to read, and the next request opens another", async () => {
    const first = arrivals.length;
    expect(await post("d.invalid", "127.0.0.1", "/long")).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(await post("d.invalid", "127.0.0.1")).toBe(200);
    const seen = arrivals.slice(first);
    expect(seen[1]!.connection).not.toBe(seen[0]!.connection);
  });
});
