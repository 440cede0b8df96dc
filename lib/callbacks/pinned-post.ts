// One HTTP(S) POST to addresses already resolved and checked
// (callback-target.ts): the request's own DNS lookup is replaced by one that
// answers only with those addresses, so what is connected to is exactly what
// was checked. TLS still verifies the certificate against the host name.
// Redirects are never followed (node:http does not follow them).
import http from "node:http";
import https from "node:https";
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from "node:dns";
import type { ResolvedAddress } from "./callback-target";

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function pinnedLookup(addresses: ResolvedAddress[]) {
  return (_hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
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
    else callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}

/** Sends the request; resolves with the status code. The body of the answer is discarded unread. */
export function pinnedPost(
  url: URL,
  hostname: string,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<number> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<number>((resolve, reject) => {
    const req = client.request(
      {
        method: "POST",
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(addresses) as never,
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
