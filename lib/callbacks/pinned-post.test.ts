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
