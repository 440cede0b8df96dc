// Where a callback may go (docs/security.md, "Callback targets"). The one rule,
// used when a callback URL is saved and again, on the addresses actually
// connected to, when a callback is delivered: never link-local or a cloud
// metadata service; loopback only when allowed (local mode or
// CALLBACK_ALLOW_LOOPBACK=1); private ranges unless CALLBACK_DENY_PRIVATE=1;
// never unspecified, multicast, broadcast or other special-purpose ranges.
// Every spelling of an address is reduced to one canonical form first: the
// WHATWG URL parser turns 0x7f000001, 2130706433, 127.1 and 0177.0.0.1 into
// 127.0.0.1 and compresses IPv6; ipaddr.js classifies; IPv6 forms that embed
// an IPv4 address (mapped, compatible, NAT64) are judged by that address, and
// so are names that spell one for wildcard DNS ("127.0.0.1.nip.io").
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "../env";

export type CallbackTargetPolicy = { allowLoopback: boolean; denyPrivate: boolean };

export type AddressClass = "public" | "private" | "loopback" | "link-local" | "metadata" | "unspecified" | "multicast" | "broadcast" | "reserved";

export type ResolvedAddress = { address: string; family: 4 | 6 };

export type TargetCheck =
  { ok: true; url: URL; hostname: string; addresses: ResolvedAddress[] } | { ok: false; reason: "invalid-url" | "blocked"; message: string };

/** Cloud instance-metadata endpoints that are not already link-local. */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OpenStack, Oracle … (also link-local)
  "169.254.170.2", // AWS ECS task metadata (also link-local)
  "100.100.100.200", // Alibaba Cloud
  "168.63.129.16", // Azure wire server
  "fd00:ec2::254", // AWS IMDS over IPv6
]);

/** Names that reach a metadata service through the platform's own resolver. */
const METADATA_HOSTNAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

const IPV4_CLASSES: Record<string, AddressClass> = {
  unicast: "public",
  private: "private",
  carrierGradeNat: "private",
  loopback: "loopback",
  linkLocal: "link-local",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
};

const IPV6_CLASSES: Record<string, AddressClass> = {
  unicast: "public",
  uniqueLocal: "private",
  deprecatedSiteLocal: "private",
  loopback: "loopback",
  linkLocal: "link-local",
  unspecified: "unspecified",
  multicast: "multicast",
};

const NAT64 = ipaddr.IPv6.parse("64:ff9b::");

/** The IPv4 address an IPv6 address stands for (mapped, translated, compatible, NAT64), if any. */
function embeddedIPv4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = a.parts;
  const low = new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  const range = a.range();
  if (range === "ipv4Mapped" || range === "rfc6145") return low;
  if (a.match(NAT64, 96)) return low;
  // ::a.b.c.d (deprecated "IPv4-compatible"); :: and ::1 are their own ranges.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return low;
  return null;
}

/** Classifies one IP address in any textual form ipaddr.js accepts; unparsable → "reserved". */
export function classifyAddress(text: string): AddressClass {
  const bare = text.replace(/^\[|\]$/g, "");
  let a: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    a = ipaddr.parse(bare);
  } catch {
    return "reserved";
  }
  if (a.kind() === "ipv6") {
    const v4 = embeddedIPv4(a as ipaddr.IPv6);
    if (v4) a = v4;
  }
  if (METADATA_ADDRESSES.has(a.toNormalizedString()) || METADATA_ADDRESSES.has(a.toString())) return "metadata";
  const table = a.kind() === "ipv4" ? IPV4_CLASSES : IPV6_CLASSES;
  return table[a.range()] ?? "reserved";
}

const DESCRIPTION: Record<AddressClass, string> = {
  public: "a public address",
  private: "a private-network address (refused because CALLBACK_DENY_PRIVATE=1)",
  loopback: "a loopback address (allowed only with CALLBACK_ALLOW_LOOPBACK=1)",
  "link-local": "a link-local address",
  metadata: "a cloud metadata service",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "a broadcast address",
  reserved: "a special-purpose address",
};

export function isAllowedClass(c: AddressClass, policy: CallbackTargetPolicy): boolean {
  if (c === "public") return true;
  if (c === "private") return !policy.denyPrivate;
  if (c === "loopback") return policy.allowLoopback;
  return false;
}

/**
 * The deployment's policy. Loopback: CALLBACK_ALLOW_LOOPBACK when set (`npm start`
 * sets it in local mode; the built server always runs as NODE_ENV=production),
 * else only outside production (the admin command line, tests).
 */
export function callbackTargetPolicy(): CallbackTargetPolicy {
  const e = env();
  return { allowLoopback: e.CALLBACK_ALLOW_LOOPBACK ?? e.NODE_ENV !== "production", denyPrivate: e.CALLBACK_DENY_PRIVATE };
}

/** The URL's host as one canonical name or address ("[::1]" → "::1", "Host.Example." → "host.example"). */
export function canonicalHost(url: URL): string | null {
  let host = url.hostname;
  if (host.startsWith("[")) return host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1); // the same name in FQDN form
  if (!host || host.endsWith(".") || host.includes("..")) return null;
  // Re-parse: "0x7f000001." only becomes an address once its dot is gone.
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

/** Parses a callback URL and judges what its host names without resolving it (IP literals, reserved names). */
export function checkCallbackUrlSyntax(
  raw: string,
  policy: CallbackTargetPolicy,
): { ok: true; url: URL; hostname: string; literal: ResolvedAddress | null } | Extract<TargetCheck, { ok: false }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "invalid-url", message: "must be a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "invalid-url", message: "must be an http or https URL" };
  if (url.username || url.password) return { ok: false, reason: "invalid-url", message: "must not contain credentials" };
  const hostname = canonicalHost(url);
  if (!hostname) return { ok: false, reason: "invalid-url", message: "has an invalid host name" };
  const family = isIP(hostname);
  if (family === 4 || family === 6) {
    const c = classifyAddress(hostname);
    if (!isAllowedClass(c, policy)) return refused(hostname, c);
    return { ok: true, url, hostname, literal: { address: hostname, family } };
  }
  if (METADATA_HOSTNAMES.has(hostname)) return refused(hostname, "metadata");
  // Wildcard DNS (nip.io, sslip.io) answers a name that spells an address
  // with that address: such a name is judged by it before any lookup, so it
  // is refused also where nothing resolves and whatever a resolver says.
  for (const spelled of addressesSpelledIn(hostname)) {
    const c = classifyAddress(spelled);
    if (!isAllowedClass(c, policy)) return refused(hostname, c, spelled, "names");
  }
  // RFC 6761: localhost and *.localhost are always loopback, whatever DNS says.
  if ((hostname === "localhost" || hostname.endsWith(".localhost")) && !policy.allowLoopback) return refused(hostname, "loopback");
  return { ok: true, url, hostname, literal: null };
}

const DOTTED_QUAD = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;
const DASHED_QUAD = /(?:^|-)((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:-(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})$/;

/** IPv4 addresses a host name spells: four numeric labels in a row ("x.127.0.0.1.nip.io") or a label ending in a dashed one ("app-10-0-0-1.sslip.io"). */
export function addressesSpelledIn(hostname: string): string[] {
  const labels = hostname.split(".");
  const found: string[] = [];
  for (let i = 0; i + 4 <= labels.length; i++) {
    const quad = labels.slice(i, i + 4);
    if (quad.every((l) => DOTTED_QUAD.test(l))) found.push(quad.join("."));
  }
  for (const label of labels) {
    const m = DASHED_QUAD.exec(label);
    if (m) found.push((m[1] as string).replace(/-/g, "."));
  }
  return found;
}

function refused(hostname: string, c: AddressClass, address?: string, how: "resolves" | "names" = "resolves"): Extract<TargetCheck, { ok: false }> {
  const via = address && address !== hostname ? ` (it ${how === "names" ? "names" : "resolves to"} ${address})` : "";
  return { ok: false, reason: "blocked", message: `callbacks may not go to ${hostname}${via}: it is ${DESCRIPTION[c]}` };
}

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Resolves the URL's host once and checks every address it resolves to; the
 * caller connects only to the addresses returned (no second resolution, so
 * DNS rebinding cannot swap in another address). A lookup failure is thrown
 * as it is (the caller decides what it means).
 */
export async function resolveCallbackTarget(raw: string, policy: CallbackTargetPolicy, lookup: Lookup = systemLookup): Promise<TargetCheck> {
  const syntax = checkCallbackUrlSyntax(raw, policy);
  if (!syntax.ok) return syntax;
  if (syntax.literal) return { ok: true, url: syntax.url, hostname: syntax.hostname, addresses: [syntax.literal] };
  const addresses = await lookup(syntax.hostname);
  if (addresses.length === 0) throw Object.assign(new Error("no address"), { code: "ENOTFOUND" });
  for (const a of addresses) {
    const c = classifyAddress(a.address);
    if (!isAllowedClass(c, policy)) return refused(syntax.hostname, c, a.address);
  }
  return { ok: true, url: syntax.url, hostname: syntax.hostname, addresses };
}

const SAVE_LOOKUP_TIMEOUT_MS = 3_000;

/**
 * When a URL is saved: its refusal if the host is, or now resolves to, an
 * address callbacks may not reach; null otherwise. A name that does not
 * resolve (within a bound) is accepted: delivery checks it again each time.
 */
export async function checkCallbackUrlOnSave(
  raw: string,
  policy: CallbackTargetPolicy,
  lookup: Lookup = systemLookup,
  timeoutMs = SAVE_LOOKUP_TIMEOUT_MS,
): Promise<Extract<TargetCheck, { ok: false }> | null> {
  const bounded: Lookup = (host) =>
    Promise.race([lookup(host), new Promise<never>((_, reject) => setTimeout(() => reject(new Error("lookup timed out")), timeoutMs).unref())]);
  let check: TargetCheck;
  try {
    check = await resolveCallbackTarget(raw, policy, bounded);
  } catch {
    return null; // the name does not resolve (now): nothing to judge yet
  }
  return check.ok ? null : check;
}
