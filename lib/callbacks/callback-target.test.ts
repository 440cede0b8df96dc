// The callback-target rule (docs/security.md, "Callback SSRF") over generated
// spellings of addresses (test/helpers/address-spellings.ts): every way
// of writing a blocked address, through the same URL parser the app uses, is
// refused as blocked (not merely as malformed); public and private addresses
// written the same ways are accepted as the policy says.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkCallbackUrlOnSave,
  checkCallbackUrlSyntax,
  classifyAddress,
  resolveCallbackTarget,
  type CallbackTargetPolicy,
  type ResolvedAddress,
} from "./callback-target";
import {
  ipv4Spelling,
  inRange,
  alwaysBlockedV4,
  privateV4,
  publicV4,
  hextet,
  ipv6Spelling,
  embeddingSpelling,
  v6With,
  alwaysBlockedV6,
  url,
  bracket,
} from "../../test/helpers/address-spellings";

const PRODUCTION: CallbackTargetPolicy = { allowLoopback: false, denyPrivate: false };
const LOCAL: CallbackTargetPolicy = { allowLoopback: true, denyPrivate: false };
const STRICT: CallbackTargetPolicy = { allowLoopback: false, denyPrivate: true };
const POLICIES = [PRODUCTION, LOCAL, STRICT, { allowLoopback: true, denyPrivate: true }];

function expectBlocked(raw: string, policy: CallbackTargetPolicy) {
  const r = checkCallbackUrlSyntax(raw, policy);
  expect(r.ok ? "accepted" : r.reason, raw).toBe("blocked");
}

function expectAccepted(raw: string, policy: CallbackTargetPolicy) {
  const r = checkCallbackUrlSyntax(raw, policy);
  expect(r.ok ? "accepted" : r.message, raw).toBe("accepted");
}

describe("callback targets: blocked addresses in every spelling", () => {
  it("refuses link-local, metadata, unspecified, multicast, broadcast and reserved IPv4 under every policy", () => {
    fc.assert(
      fc.property(alwaysBlockedV4.chain(ipv4Spelling).chain(url), fc.constantFrom(...POLICIES), (raw, policy) => expectBlocked(raw, policy)),
      { numRuns: 2000 },
    );
  });

  it("refuses loopback IPv4 in every spelling unless loopback is allowed, and accepts it when it is", () => {
    fc.assert(
      fc.property(inRange([127]).chain(ipv4Spelling).chain(url), (raw) => {
        expectBlocked(raw, PRODUCTION);
        expectBlocked(raw, STRICT);
        expectAccepted(raw, LOCAL);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses blocked IPv4 addresses embedded in IPv6 (mapped, SIIT, compatible, NAT64)", () => {
    fc.assert(
      fc.property(alwaysBlockedV4.chain(embeddingSpelling).map(bracket).chain(url), fc.constantFrom(...POLICIES), (raw, policy) =>
        expectBlocked(raw, policy),
      ),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(inRange([127]).chain(embeddingSpelling).map(bracket).chain(url), (raw) => expectBlocked(raw, PRODUCTION)),
      { numRuns: 300 },
    );
  });

  it("refuses link-local, multicast, unspecified and metadata IPv6 in every text form", () => {
    fc.assert(
      fc.property(alwaysBlockedV6.chain(ipv6Spelling).map(bracket).chain(url), fc.constantFrom(...POLICIES), (raw, policy) =>
        expectBlocked(raw, policy),
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses ::1 in every text form unless loopback is allowed", () => {
    fc.assert(
      fc.property(ipv6Spelling([0, 0, 0, 0, 0, 0, 0, 1]).map(bracket).chain(url), (raw) => {
        expectBlocked(raw, PRODUCTION);
        expectAccepted(raw, LOCAL);
      }),
    );
  });

  it("refuses metadata and localhost names in any case, with or without the FQDN dot", () => {
    const caseOf = (name: string) =>
      fc
        .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
        .map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(""));
    const metadata = fc.constantFrom("metadata.google.internal", "metadata", "metadata.goog", "instance-data", "instance-data.ec2.internal");
    const dot = fc.constantFrom("", ".");
    const metadataUrl = metadata
      .chain(caseOf)
      .chain((n) => dot.map((d) => n + d))
      .chain(url);
    fc.assert(
      fc.property(metadataUrl, fc.constantFrom(...POLICIES), (raw, policy) => expectBlocked(raw, policy)),
      { numRuns: 300 },
    );
    const local = fc.constantFrom("localhost", "api.localhost", "a.b.localhost");
    fc.assert(
      fc.property(local.chain(caseOf), dot, (name, d) => {
        expectBlocked(`http://${name}${d}:3000/cb`, PRODUCTION);
        expectAccepted(`http://${name}${d}:3000/cb`, LOCAL);
      }),
    );
  });

  it("names the reason in the refusal", () => {
    const r = checkCallbackUrlSyntax("http://0xa9fea9fe/latest/meta-data", LOCAL);
    expect(r).toMatchObject({ ok: false, reason: "blocked", message: "callbacks may not go to 169.254.169.254: it is a cloud metadata service" });
    expect(checkCallbackUrlSyntax("http://[::1]:9/", PRODUCTION)).toMatchObject({ message: expect.stringContaining("CALLBACK_ALLOW_LOOPBACK=1") });
  });
});

describe("callback targets: allowed addresses", () => {
  it("accepts public IPv4 and IPv6 in every spelling under every policy", () => {
    fc.assert(
      fc.property(
        publicV4
          .chain((v) =>
            fc.oneof(
              ipv4Spelling(v),
              embeddingSpelling(v)
                .filter((s) => s.startsWith("::ffff") || s.startsWith("::FFFF"))
                .map(bracket),
            ),
          )
          .chain(url),
        fc.constantFrom(...POLICIES),
        (raw, policy) => expectAccepted(raw, policy),
      ),
      { numRuns: 1000 },
    );
    const publicV6 = fc.oneof(
      fc.tuple(hextet, hextet, hextet, hextet, hextet, hextet).map((r) => [0x2606, 0x4700, ...r]),
      fc.tuple(hextet, hextet, hextet, hextet, hextet, hextet).map((r) => [0x2a00, 0x1450, ...r]),
    );
    fc.assert(
      fc.property(publicV6.chain(ipv6Spelling).map(bracket).chain(url), fc.constantFrom(...POLICIES), (raw, policy) => expectAccepted(raw, policy)),
    );
    expectAccepted("https://hooks.example.com/cb", PRODUCTION);
  });

  it("accepts private ranges by default and refuses them with CALLBACK_DENY_PRIVATE", () => {
    fc.assert(
      fc.property(privateV4.chain(ipv4Spelling).chain(url), (raw) => {
        expectAccepted(raw, PRODUCTION);
        expectBlocked(raw, STRICT);
      }),
      { numRuns: 1000 },
    );
    const ula = v6With(fc.integer({ min: 0xfc00, max: 0xfdff })).filter((p) => !(p[0] === 0xfd00 && p[1] === 0xec2));
    fc.assert(
      fc.property(ula.chain(ipv6Spelling).map(bracket).chain(url), (raw) => {
        expectAccepted(raw, PRODUCTION);
        expectBlocked(raw, STRICT);
      }),
    );
  });

  it("still refuses malformed URLs, other schemes and credentials, as invalid rather than blocked", () => {
    for (const raw of [
      "not a url",
      "ftp://example.com/",
      "file:///etc/passwd",
      "https://u:p@example.com/",
      "http://a..b/",
      "http://example.com../",
    ]) {
      const r = checkCallbackUrlSyntax(raw, LOCAL);
      expect(r.ok ? "accepted" : r.reason, raw).toBe("invalid-url");
    }
  });
});

describe("callback targets: resolved names", () => {
  const lookupOf = (addresses: string[]) => async (): Promise<ResolvedAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

  it("refuses a name when any one of its addresses is blocked, and returns exactly the checked addresses otherwise", async () => {
    const blocked = ["169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "127.0.0.1", "fd00:ec2::254", "0.0.0.0", "::"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          publicV4.map((v) => v.join(".")),
          { maxLength: 4 },
        ),
        fc.constantFrom(...blocked),
        fc.nat(),
        async (good, bad, at) => {
          const mixed = [...good];
          mixed.splice(at % (good.length + 1), 0, bad);
          const r = await resolveCallbackTarget("https://rebind.example.com/cb", PRODUCTION, lookupOf(mixed));
          expect(r.ok ? "accepted" : r.reason).toBe("blocked");
          if (good.length > 0) {
            const ok = await resolveCallbackTarget("https://hooks.example.com/cb", PRODUCTION, lookupOf(good));
            expect(ok.ok && ok.addresses.map((a) => a.address)).toEqual(good);
          }
        },
      ),
    );
  });

  it("does not look up an address literal or a refused name", async () => {
    let lookups = 0;
    const counting = async () => {
      lookups++;
      return [{ address: "8.8.8.8", family: 4 as const }];
    };
    expect((await resolveCallbackTarget("http://0x7f000001:9/", PRODUCTION, counting)).ok).toBe(false);
    expect((await resolveCallbackTarget("http://metadata.google.internal/", LOCAL, counting)).ok).toBe(false);
    expect(await resolveCallbackTarget("http://8.8.4.4/", PRODUCTION, counting)).toMatchObject({
      ok: true,
      addresses: [{ address: "8.8.4.4", family: 4 }],
    });
    expect(lookups).toBe(0);
  });

  it("resolves localhost through the system resolver to loopback, refused in production", async () => {
    expect(await resolveCallbackTarget("http://localhost./cb", { allowLoopback: false, denyPrivate: false })).toMatchObject({
      ok: false,
      reason: "blocked",
    });
    const local = await resolveCallbackTarget("http://localhost/cb", LOCAL);
    expect(local.ok && local.addresses.every((a) => classifyAddress(a.address) === "loopback")).toBe(true);
  });

  it("when saving: refuses what a name resolves to now, and leaves a name that does not resolve to delivery", async () => {
    expect(await checkCallbackUrlOnSave("https://cb.example.com/x", PRODUCTION, lookupOf(["8.8.8.8", "169.254.169.254"]))).toMatchObject({
      reason: "blocked",
      message: "callbacks may not go to cb.example.com (it resolves to 169.254.169.254): it is a cloud metadata service",
    });
    expect(await checkCallbackUrlOnSave("https://cb.example.com/x", PRODUCTION, lookupOf(["8.8.8.8"]))).toBeNull();
    const notFound = async (): Promise<ResolvedAddress[]> => Promise.reject(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
    expect(await checkCallbackUrlOnSave("https://cb.example.com/x", PRODUCTION, notFound)).toBeNull();
    const started = Date.now();
    expect(await checkCallbackUrlOnSave("https://cb.example.com/x", PRODUCTION, () => new Promise(() => undefined), 200)).toBeNull();
    expect(Date.now() - started).toBeLessThan(2_000);
    // A literal or a reserved name is refused without any lookup.
    expect(await checkCallbackUrlOnSave("http://[::ffff:a9fe:a9fe]/", LOCAL, notFound)).toMatchObject({ reason: "blocked" });
  });

  it("judges a name that spells an address (wildcard DNS: nip.io, sslip.io) by that address, before any lookup", async () => {
    for (const raw of [
      "https://127.0.0.1.nip.io/cb",
      "https://app.127.0.0.1.nip.io/cb",
      "https://127-0-0-1.sslip.io/cb",
      "https://www-127-0-0-1.sslip.io/cb",
      "https://169.254.169.254.nip.io/cb",
    ]) {
      const r = checkCallbackUrlSyntax(raw, PRODUCTION);
      expect(r.ok ? "accepted" : r.reason, raw).toBe("blocked");
      expect(await checkCallbackUrlOnSave(raw, PRODUCTION, lookupOf(["8.8.8.8"])), raw).toMatchObject({ reason: "blocked" });
    }
    expect(checkCallbackUrlSyntax("https://127.0.0.1.nip.io/cb", PRODUCTION)).toMatchObject({
      message:
        "callbacks may not go to 127.0.0.1.nip.io (it names 127.0.0.1): it is a loopback address (allowed only with CALLBACK_ALLOW_LOOPBACK=1)",
    });
    // Under the policy of the address it names: private by default allowed, refused with CALLBACK_DENY_PRIVATE.
    expectAccepted("https://10.0.0.1.nip.io/cb", PRODUCTION);
    expectBlocked("https://10-0-0-1.sslip.io/cb", STRICT);
    expectAccepted("https://127.0.0.1.nip.io/cb", LOCAL);
    // Public ones, and names with numbers that spell no address, are left to the lookup.
    for (const raw of [
      "https://8.8.8.8.nip.io/cb",
      "https://1.2.3.example.com/cb",
      "https://256.0.0.1.example.com/cb",
      "https://v1-2-3-4x.example.com/cb",
    ])
      expectAccepted(raw, STRICT);
  });

  it("classifies addresses as the contract names them", () => {
    expect(classifyAddress("169.254.169.254")).toBe("metadata");
    expect(classifyAddress("fd00:ec2::254")).toBe("metadata");
    expect(classifyAddress("100.100.100.200")).toBe("metadata");
    expect(classifyAddress("::ffff:a9fe:a9fe")).toBe("metadata");
    expect(classifyAddress("169.254.1.1")).toBe("link-local");
    expect(classifyAddress("fe80::1")).toBe("link-local");
    expect(classifyAddress("[0:0:0:0:0:0:0:1]")).toBe("loopback");
    expect(classifyAddress("100.64.0.1")).toBe("private");
    expect(classifyAddress("255.255.255.255")).toBe("broadcast");
    expect(classifyAddress("ff02::1")).toBe("multicast");
    expect(classifyAddress("not an address")).toBe("reserved");
  });
});
