// fast-check generators of network addresses in every way a URL can spell
// them: IPv4 in decimal, octal, hex and shortened forms, IPv6 in every text
// form, IPv4 embedded in IPv6, by range (blocked, private, public). The
// callback-target properties (lib/callbacks) check the rule against them.
import fc from "fast-check";

const byte = fc.integer({ min: 0, max: 255 });
export type V4 = [number, number, number, number];

// ---------------------------------------------------------------- IPv4

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
export const ipv4Spelling = (v: V4) => {
  const [a, b, c, d] = v;
  const groups = [[a, b, c, d], [a, b, (c << 8) | d], [a, (b << 16) | (c << 8) | d], [((a << 24) | (b << 16) | (c << 8) | d) >>> 0]];
  return fc
    .constantFrom(...groups)
    .chain((parts) => fc.tuple(...parts.map(numberSpelling)))
    .chain((parts) => fc.constantFrom(parts.join("."), parts.join(".") + "."));
};

export const inRange = (prefix: number[], fill = byte) =>
  fc.tuple(fill, fill, fill, fill).map((rnd) => [...prefix, ...rnd.slice(prefix.length)] as V4);

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

export const alwaysBlockedV4 = blockedV4Production.filter((v) => v[0] !== 127);

export const privateV4 = fc.oneof(
  inRange([10]),
  fc.tuple(fc.integer({ min: 16, max: 31 }), byte, byte).map(([b, c, d]) => [172, b, c, d] as V4),
  inRange([192, 168]),
  fc
    .tuple(fc.integer({ min: 64, max: 127 }), byte, byte)
    .map(([b, c, d]) => [100, b, c, d] as V4)
    .filter((v) => v.join(".") !== "100.100.100.200"),
);

// Addresses in blocks known to be ordinary public unicast (not derived from the code under test).
export const publicV4 = fc.oneof(inRange([8]), inRange([1, 1, 1]), inRange([93, 184]), inRange([52]), inRange([151, 101]));

// ---------------------------------------------------------------- IPv6

export const hextet = fc.integer({ min: 0, max: 0xffff });
export type V6 = number[]; // 8 hextets

/** Any valid text form: each group zero-padded or not, any case, "::" over any run of zero groups. */
export const ipv6Spelling = (parts: V6) =>
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
export const embeddingSpelling = (v: V4) => {
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

export const v6With = (first: fc.Arbitrary<number>) => fc.tuple(first, ...Array.from({ length: 7 }, () => hextet)) as fc.Arbitrary<V6>;

export const alwaysBlockedV6: fc.Arbitrary<V6> = fc.oneof(
  v6With(fc.integer({ min: 0xfe80, max: 0xfebf })), // link-local fe80::/10
  v6With(fc.integer({ min: 0xff00, max: 0xffff })), // multicast
  fc.constant<V6>([0, 0, 0, 0, 0, 0, 0, 0]), // unspecified
  fc.constant<V6>([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]), // AWS metadata over IPv6
);

export const url = (host: string) =>
  fc
    .tuple(fc.constantFrom("http", "https", "HTTP"), fc.constantFrom("", ":80", ":8080", ":443"), fc.constantFrom("/", "/cb", "/a?b=c"))
    .map(([s, p, path]) => `${s}://${host}${p}${path}`);
export const bracket = (s: string) => `[${s}]`;
