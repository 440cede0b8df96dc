// The client's address, as the server in front of Next stamped it on the
// request (scripts/server/serve.mjs: the socket address, or the entry the
// TRUSTED_PROXY_HOPS-th proxy wrote into X-Forwarded-For). The server always
// overwrites this header, so a client cannot choose it; X-Forwarded-For
// itself is never read here.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export const CLIENT_ADDRESS_HEADER = "x-countersign-client-address";

/** The stamped address, or null when the request did not come through the server (or it could not tell). */
export function clientAddress(headers: Headers): string | null {
  const value = headers.get(CLIENT_ADDRESS_HEADER);
  return value && isIP(value) !== 0 ? value : null;
}

/**
 * The address as a rate-limit key: IPv4 as is, IPv6 by its /64 prefix (one
 * subscriber usually holds a whole /64, so single IPv6 addresses are free to rotate).
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return ip.toString();
  return `${ip.toNormalizedString().split(":").slice(0, 4).join(":")}::/64`;
}
