// A TCP forwarder in front of a database server that a test can cut (every
// open connection reset, the port closed: what a stopped or unreachable
// server looks like to the app) and restore on the same port.
import { createServer, connect, type Server, type Socket } from "node:net";

export type DatabaseProxy = {
  /** Listens (on the port of the first start when restarted) and returns the port. */
  start(): Promise<number>;
  cut(): Promise<void>;
  stop(): Promise<void>;
};

export function databaseProxy(target: { host: string; port: number }): DatabaseProxy {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const cut = async () => {
    // close() waits for open connections, so reset them after asking it to stop listening.
    const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const s of sockets) s.resetAndDestroy();
    await closed;
  };
  return {
    start: () =>
      new Promise<number>((resolve, reject) => {
        server = createServer((client) => {
          const upstream = connect(target.port, target.host);
          for (const s of [client, upstream]) {
            sockets.add(s);
            s.on("close", () => sockets.delete(s));
            s.on("error", () => undefined);
          }
          client.pipe(upstream).pipe(client);
        });
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          port = (server!.address() as { port: number }).port;
          resolve(port);
        });
      }),
    cut,
    async stop() {
      if (server?.listening) await cut();
    },
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function urlThroughProxy(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return proxied.toString();
}

/** The host and port `url` points at. */
export function targetOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432) };
}
