// The client's address for the rate limits, as the custom server stamps it on
// every request (scripts/server/serve.mjs). Plain JavaScript: the server runs
// under plain Node, outside the Next build.
//
// X-Forwarded-For grows to the right: each proxy appends the address it saw.
// With `hops` trusted proxies in front of us, the right-most `hops` entries
// plus the socket address are theirs to vouch for; everything further left
// was written by the client and is ignored. With 0 hops the socket address
// is the client, and the header is never read.
import { isIP } from "node:net";

/** One address without a port or brackets; IPv4-mapped IPv6 as plain IPv4; null if it is not an IP address. */
export function normalizeAddress(raw) {
  if (typeof raw !== "string") return null;
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/.test(a)) a = a.slice(0, a.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1];
  if (isIP(a) === 0) return null;
  return a.toLowerCase();
}

/**
 * @param {string | undefined} socketAddress req.socket.remoteAddress
 * @param {string | string[] | undefined} forwardedFor every X-Forwarded-For header, in order
 * @param {number} hops trusted proxies in front of the app
 * @returns {string} the client's address, or "(unknown)" when the trusted entry is not an address
 */
export function clientAddressFrom(socketAddress, forwardedFor, hops) {
  const socket = normalizeAddress(socketAddress);
  if (hops <= 0) return socket ?? "(unknown)";
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "");
  const chain = header
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  // chain[len-1] was written by the nearest proxy (the socket peer), and so on
  // outwards; with fewer entries than proxies the left-most one is the best
  // any trusted party saw.
  const index = Math.max(0, chain.length - hops);
  if (chain.length === 0) return socket ?? "(unknown)";
  return normalizeAddress(chain[index]) ?? "(unknown)";
}
