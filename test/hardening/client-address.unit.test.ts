// The client address the server stamps on every request (docs/security.md):
// with N trusted proxies, what the client wrote into X-Forwarded-For never
// decides it; with none, the header is not read at all.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAddressFrom, normalizeAddress } from "../../scripts/server/client-address.mjs";
import { addressKey } from "@/lib/http/client-address";

const ipv4 = fc.ipV4();
const anyEntry = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.string({ maxLength: 20 }).filter((s) => !s.includes(",")),
);

describe("client address through trusted proxies", () => {
  it("with 0 hops is the socket address, whatever X-Forwarded-For says", () => {
    fc.assert(
      fc.property(ipv4, fc.array(anyEntry, { maxLength: 5 }), (socket, forged) => {
        expect(clientAddressFrom(`::ffff:${socket}`, forged.join(", "), 0)).toBe(socket);
      }),
    );
  });

  it("with N hops is the entry the outermost trusted proxy wrote, whatever the client wrote to its left", () => {
    fc.assert(
      fc.property(fc.array(anyEntry, { maxLength: 5 }), ipv4, fc.array(ipv4, { maxLength: 3 }), ipv4, (clientWrote, client, innerProxies, socket) => {
        // The outermost proxy appends the client's address; each inner proxy appends its peer's.
        const header = [...clientWrote, client, ...innerProxies].join(", ");
        const hops = innerProxies.length + 1;
        expect(clientAddressFrom(socket, header, hops)).toBe(client);
        // Several X-Forwarded-For headers read as one list, in order.
        expect(clientAddressFrom(socket, [clientWrote.join(", "), [client, ...innerProxies].join(", ")].filter(Boolean), hops)).toBe(client);
      }),
    );
  });

  it("with fewer entries than hops, or none, falls back to the left-most entry or the socket", () => {
    expect(clientAddressFrom("10.0.0.9", undefined, 1)).toBe("10.0.0.9");
    expect(clientAddressFrom("10.0.0.9", "", 2)).toBe("10.0.0.9");
    expect(clientAddressFrom("10.0.0.9", "192.0.2.1", 3)).toBe("192.0.2.1");
  });

  it("never returns something that is not an address", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 0, max: 4 }), (socket, header, hops) => {
        const a = clientAddressFrom(socket, header, hops);
        expect(a === "(unknown)" || normalizeAddress(a) === a).toBe(true);
      }),
    );
  });

  it("normalizes ports, brackets and IPv4-mapped IPv6", () => {
    expect(normalizeAddress("192.0.2.1:5678")).toBe("192.0.2.1");
    expect(normalizeAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("unknown")).toBeNull();
  });

  it("keys IPv6 clients by their /64, IPv4 by the address", () => {
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("2001:db8:1:2::1")).toBe(addressKey("2001:db8:1:2:ffff:ffff:ffff:ffff"));
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"));
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
  });
});
