// The callback-target rule (CONTRACT §19) over generated spellings: every way
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

const PRODUCTION: CallbackTargetPolicy = { allowLoopback: false, denyPrivate: false };
const LOCAL: CallbackTargetPolicy = { allowLoopback: true, denyPrivate: false };
const STRICT: CallbackTargetPolicy = { allowLoopback: false, denyPrivate: true };
const POLICIES = [PRODUCTION, LOCAL, STRICT, { allowLoopback: true, denyPrivate: true }];

const byte = fc.integer({ min: 0, max: 255 });
type V4 = [number, number, number, number];

// ---------------------------------------------------------------- IPv4 spellings

/** A number written in decimal, octal (leading 0) or hex (0x / 0X, any case), with optional extra leading zeros. */
const numberSpelling = (n: number) =>
  fc.oneof(
    fc.constant(String(n)),
    fc.nat({ max: 3 }).map((z) => "0" + "0".repeat(z) + n.toString(8)),
    fc.tuple(fc.constantFrom("0x", "0X"), fc.nat({ max: 2 }), fc.boolean()).map(([p, z, upper]) => {
      const hex = n.toString(16);
      return p + "0".repeat(z) + (upper ? hex.toUpperCase() : hex);
    }),
  );

/** a.b.c.d, a.b.(16-bit), a.(24-bit), (32-bit): each part spelled its own way; optional trailing dot. */
const ipv4Spelling = (v: V4) => {
  const [a, b, c, d] = v;
  const groups = [[a, b, c, d], [a, b, (c << 8) | d], [a, (b << 16) | (c << 8) | d], [((a << 24) | (b << 16) | (c << 8) | d) >>> 0]];
  return fc
    .constantFrom(...groups)
    .chain((parts) => fc.tuple(...parts.map(numberSpelling)))
    .chain((parts) => fc.constantFrom(parts.join("."), parts.join(".") + "."));
};

const inRange = (prefix: number[], fill = byte) => fc.tuple(fill, fill, fill, fill).map((rnd) => [...prefix, ...rnd.slice(prefix.length)] as V4);

const blockedV4Production = fc.oneof(
  inRange([169, 254]), // link-local, incl. 169.254.169.254
  fc.constant<V4>([169, 254, 169, 254]),
  inRange([127]), // loopback
  inRange([0]), // unspecified ("this network")
  fc.tuple(fc.integer({ min: 224, max: 239 }), byte, byte, byte) as fc.Arbitrary<V4>, // multicast
  fc.tuple(fc.integer({ min: 240, max: 255 }), byte, byte, byte) as fc.Arbitrary<V4>, // reserved + broadcast
  fc.constant<V4>([255, 255, 255, 255]),
  fc.constant<V4>([100, 100, 100, 200]), // Alibaba metadata inside 100.64/10
);

const alwaysBlockedV4 = blockedV4Production.filter((v) => v[0] !== 127);

const privateV4 = fc.oneof(
  inRange([10]),
  fc.tuple(fc.integer({ min: 16, max: 31 }), byte, byte).map(([b, c, d]) => [172, b, c, d] as V4),
  inRange([192, 168]),
  fc
    .tuple(fc.integer({ min: 64, max: 127 }), byte, byte)
    .map(([b, c, d]) => [100, b, c, d] as V4)
    .filter((v) => v.join(".") !== "100.100.100.200"),
);

// Addresses in blocks known to be ordinary public unicast (not derived from the code under test).
const publicV4 = fc.oneof(inRange([8]), inRange([1, 1, 1]), inRange([93, 184]), inRange([52]), inRange([151, 101]));

// ---------------------------------------------------------------- IPv6 spellings

const hextet = fc.integer({ min: 0, max: 0xffff });
type V6 = number[]; // 8 hextets

/** Any valid text form: each group zero-padded or not, any case, "::" over any run of zero groups. */
const ipv6Spelling = (parts: V6) =>
  fc.tuple(fc.array(fc.nat({ max: 3 }), { minLength: 8, maxLength: 8 }), fc.boolean(), fc.nat()).map(([pads, upper, pick]) => {
    const groups = parts.map((p, i) => {
      const h = p.toString(16);
      const padded = "0".repeat(Math.min(pads[i]!, 4 - h.length)) + h;
      return upper ? padded.toUpperCase() : padded;
    });
    const runs: Array<[number, number]> = [];
    for (let i = 0; i < 8; i++) for (let j = i; j < 8 && parts[j] === 0; j++) runs.push([i, j + 1]);
    if (runs.length === 0 || pick % 3 === 0) return groups.join(":");
    const [s, e] = runs[pick % runs.length]!;
    return `${groups.slice(0, s).join(":")}::${groups.slice(e).join(":")}`;
  });

/** The IPv6 forms that carry an IPv4 address: mapped (dotted or hex), SIIT, compatible, NAT64. */
const embeddingSpelling = (v: V4) => {
  const hi = (v[0] << 8) | v[1];
  const lo = (v[2] << 8) | v[3];
  const dotted = v.join(".");
  return fc.oneof(
    fc.constantFrom(`::ffff:${dotted}`, `::FFFF:${dotted}`, `0:0:0:0:0:ffff:${dotted}`, `::ffff:0:${dotted}`, `64:ff9b::${dotted}`),
    ipv6Spelling([0, 0, 0, 0, 0, 0xffff, hi, lo]),
    ipv6Spelling([0, 0, 0, 0, 0xffff, 0, hi, lo]),
    ipv6Spelling([0x64, 0xff9b, 0, 0, 0, 0, hi, lo]),
    ...(hi !== 0 ? [fc.constant(`::${dotted}`), ipv6Spelling([0, 0, 0, 0, 0, 0, hi, lo])] : []),
  );
};

const v6With = (first: fc.Arbitrary<number>) => fc.tuple(first, ...Array.from({ length: 7 }, () => hextet)) as fc.Arbitrary<V6>;

const alwaysBlockedV6: fc.Arbitrary<V6> = fc.oneof(
  v6With(fc.integer({ min: 0xfe80, max: 0xfebf })), // link-local fe80::/10
  v6With(fc.integer({ min: 0xff00, max: 0xffff })), // multicast
  fc.constant<V6>([0, 0, 0, 0, 0, 0, 0, 0]), // unspecified
  fc.constant<V6>([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]), // AWS metadata over IPv6
);

const url = (host: string) =>
  fc
    .tuple(fc.constantFrom("http", "https", "HTTP"), fc.constantFrom("", ":80", ":8080", ":443"), fc.constantFrom("/", "/cb", "/a?b=c"))
    .map(([s, p, path]) => `${s}://${host}${p}${path}`);
const bracket = (s: string) => `[${s}]`;

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
