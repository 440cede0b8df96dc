// The push-target rule (push-target.ts): the callback-target
// rule with private ranges refused, plus https only and port 443 unless
// PUSH_ALLOW_ANY_PORT=1; the same when saved and before each send, over
// generated spellings of addresses (test/helpers/address-spellings.ts) and
// names that resolve (a stand-in resolver: where a name points is the
// input here; the real resolver is used by the integration tests).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alwaysBlockedV4, embeddingSpelling, inRange, ipv4Spelling, privateV4, publicV4, bracket } from "../../test/helpers/address-spellings";
import type { Lookup } from "../callbacks/callback-target";
import { NOT_A_PUSH_ADDRESS, pushEndpointProblem, pushEndpointProblemOnSave, resolvePushTarget, type PushTargetPolicy } from "./push-target";

const PRODUCTION: PushTargetPolicy = { allowLoopback: false, denyPrivate: true, anyPort: false };
const TESTS: PushTargetPolicy = { allowLoopback: true, denyPrivate: true, anyPort: true };
const https = (host: string) => fc.constantFrom("/", "/push/abc", "/fcm/send/x?y=z").map((path) => `https://${host}${path}`);
const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
const noLookup: Lookup = async () => {
  throw new Error("no lookup expected");
};

describe("push endpoints: the callback rule, https, port 443, no private range", () => {
  it("accepts a vendor's push service", async () => {
    for (const raw of [
      "https://fcm.googleapis.com/fcm/send/abc:def",
      "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
      "https://web.push.apple.com/QGuQ",
      "https://push.example.com:443/x",
    ]) {
      expect(pushEndpointProblem(raw, PRODUCTION), raw).toBeNull();
      expect(await pushEndpointProblemOnSave(raw, PRODUCTION, resolvesTo("142.250.185.74")), raw).toBeNull();
      expect(await resolvePushTarget(raw, PRODUCTION, resolvesTo("142.250.185.74")), raw).toMatchObject({ ok: true });
    }
  });

  it("refuses anything but https:, whatever the host", () => {
    for (const raw of [
      "http://fcm.googleapis.com/fcm/send/x",
      "HTTP://127.0.0.1:8080/x",
      "http://127.1:8080/push",
      "ws://push.example.com/x",
      "ftp://x/y",
    ]) {
      expect(pushEndpointProblem(raw, PRODUCTION), raw).toBe("must be an https: URL");
      expect(pushEndpointProblem(raw, TESTS), raw).toBe("must be an https: URL");
    }
    expect(pushEndpointProblem("not a url", PRODUCTION)).toBe("must be a URL");
  });

  it("refuses every port but 443 unless any port is allowed", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 65535 }).filter((p) => p !== 443),
        (port) => {
          expect(pushEndpointProblem(`https://push.example.com:${port}/x`, PRODUCTION)).toBe("must use port 443");
          expect(pushEndpointProblem(`https://push.example.com:${port}/x`, { ...PRODUCTION, anyPort: true })).toBeNull();
        },
      ),
    );
    expect(pushEndpointProblem("https://push.example.com:0443/x", PRODUCTION)).toBeNull(); // the same port, spelled with a zero
  });

  it("refuses loopback in every spelling unless loopback is allowed", () => {
    fc.assert(
      fc.property(fc.oneof(inRange([127]).chain(ipv4Spelling), inRange([127]).chain(embeddingSpelling).map(bracket)).chain(https), (raw) => {
        expect(pushEndpointProblem(raw, PRODUCTION), raw).toBe(NOT_A_PUSH_ADDRESS);
        expect(pushEndpointProblem(raw, TESTS), raw).toBeNull();
      }),
      { numRuns: 500 },
    );
    for (const raw of [
      "https://[::1]/x",
      "https://localhost/x",
      "https://push.localhost/x",
      "https://127.0.0.1.nip.io/x",
      "https://127-0-0-1.sslip.io/x",
    ])
      expect(pushEndpointProblem(raw, PRODUCTION), raw).toBe(NOT_A_PUSH_ADDRESS);
  });

  it("refuses private ranges in every spelling, even where callbacks may reach them", () => {
    fc.assert(
      fc.property(privateV4.chain(ipv4Spelling).chain(https), fc.constantFrom(PRODUCTION, TESTS), (raw, policy) => {
        expect(pushEndpointProblem(raw, policy), raw).toBe(NOT_A_PUSH_ADDRESS);
      }),
      { numRuns: 500 },
    );
    for (const raw of ["https://[fd00::1]/x", "https://[::ffff:10.0.0.1]/x", "https://10.0.0.1.nip.io/x", "https://app-192-168-1-2.sslip.io/x"])
      expect(pushEndpointProblem(raw, TESTS), raw).toBe(NOT_A_PUSH_ADDRESS);
    // The port is named first where both are wrong.
    expect(pushEndpointProblem("https://10.1.2.3:6379/x", PRODUCTION)).toBe("must use port 443");
    expect(pushEndpointProblem("https://10.1.2.3:6379/x", TESTS)).toBe(NOT_A_PUSH_ADDRESS);
  });

  it("refuses link-local, metadata and other special addresses under every policy, and accepts public ones", () => {
    fc.assert(
      fc.property(alwaysBlockedV4.chain(ipv4Spelling).chain(https), fc.constantFrom(PRODUCTION, TESTS), (raw, policy) => {
        expect(pushEndpointProblem(raw, policy), raw).toBe(NOT_A_PUSH_ADDRESS);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(publicV4.chain(ipv4Spelling).chain(https), (raw) => {
        expect(pushEndpointProblem(raw, PRODUCTION), raw).toBeNull();
      }),
      { numRuns: 300 },
    );
    expect(pushEndpointProblem("https://metadata.google.internal/x", TESTS)).toBe(NOT_A_PUSH_ADDRESS);
    expect(pushEndpointProblem("https://user:pass@fcm.googleapis.com/x", PRODUCTION)).toBe(NOT_A_PUSH_ADDRESS);
  });

  it("refuses a name that resolves to loopback, a private or a metadata address when saved", async () => {
    for (const address of ["127.0.0.1", "::1", "10.0.0.5", "192.168.1.1", "fd12::1", "169.254.169.254", "::ffff:127.0.0.1"]) {
      expect(await pushEndpointProblemOnSave("https://push.evil.test/x", PRODUCTION, resolvesTo(address)), address).toBe(NOT_A_PUSH_ADDRESS);
    }
    // One refused address among public ones is enough.
    expect(await pushEndpointProblemOnSave("https://push.evil.test/x", PRODUCTION, resolvesTo("93.184.216.34", "10.0.0.5"))).toBe(NOT_A_PUSH_ADDRESS);
    // A name that does not resolve now is checked again at each send.
    const nowhere: Lookup = async () => {
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    };
    expect(await pushEndpointProblemOnSave("https://push.example.com/x", PRODUCTION, nowhere)).toBeNull();
    // What the syntax refuses is never looked up.
    expect(await pushEndpointProblemOnSave("https://127.0.0.1.nip.io/x", PRODUCTION, noLookup)).toBe(NOT_A_PUSH_ADDRESS);
  });

  it("before each send: refused (never worth retrying) when the rule says no now, retried when the name does not resolve", async () => {
    // Saved while it pointed at a public address, it points at loopback now (DNS rebinding).
    expect(await pushEndpointProblemOnSave("https://push.evil.test/x", PRODUCTION, resolvesTo("93.184.216.34"))).toBeNull();
    expect(await resolvePushTarget("https://push.evil.test/x", PRODUCTION, resolvesTo("127.0.0.1"))).toEqual({
      ok: false,
      refused: true,
      reason: `the endpoint ${NOT_A_PUSH_ADDRESS}`,
    });
    // Saved before the rule: plain http, another port.
    expect(await resolvePushTarget("http://push.example.com/x", PRODUCTION, noLookup)).toEqual({
      ok: false,
      refused: true,
      reason: "the endpoint must be an https: URL",
    });
    expect(await resolvePushTarget("https://push.example.com:8443/x", PRODUCTION, noLookup)).toEqual({
      ok: false,
      refused: true,
      reason: "the endpoint must use port 443",
    });
    const nowhere: Lookup = async () => {
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    };
    expect(await resolvePushTarget("https://push.example.com/x", PRODUCTION, nowhere)).toEqual({
      ok: false,
      refused: false,
      reason: "the push service's host name did not resolve",
    });
    // Only the checked addresses are handed to the sender.
    expect(await resolvePushTarget("https://push.example.com/x", PRODUCTION, resolvesTo("93.184.216.34"))).toMatchObject({
      ok: true,
      hostname: "push.example.com",
      addresses: [{ address: "93.184.216.34", family: 4 }],
    });
  });
});
