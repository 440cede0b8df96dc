// Writes the app's icons (public/icons/*.png) with no image library: a
// check mark on a solid background, drawn per pixel and PNG-encoded with
// zlib. Run `node scripts/make-icons.mjs` after changing the design; the
// PNGs are committed.
import { writeFileSync, mkdirSync } from "node:fs";
import { deflateSync } from "node:zlib";

const BACKGROUND = [29, 78, 216]; // Tailwind blue-700, the app's link colour
const MARK = [255, 255, 255];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Distance from point p to the segment a–b. */
function distance(p, a, b) {
  const [dx, dy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/** `scale`: the mark's size as a share of the icon (a maskable icon keeps it inside the 80 % safe zone). */
function icon(size, scale) {
  const s = (v) => size / 2 + (v - 0.5) * scale * size;
  const points = [
    [s(0.22), s(0.52)],
    [s(0.42), s(0.72)],
    [s(0.78), s(0.3)],
  ];
  const half = 0.055 * scale * size;
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    raw[y * (1 + size * 3)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const p = [x + 0.5, y + 0.5];
      const d = Math.min(distance(p, points[0], points[1]), distance(p, points[1], points[2]));
      // One pixel of anti-aliasing at the stroke's edge.
      const cover = Math.max(0, Math.min(1, half - d + 0.5));
      const o = y * (1 + size * 3) + 1 + x * 3;
      for (let c = 0; c < 3; c++) raw[o + c] = Math.round(BACKGROUND[c] * (1 - cover) + MARK[c] * cover);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const dir = new URL("../public/icons/", import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, size, scale] of [
  ["icon-192.png", 192, 1],
  ["icon-512.png", 512, 1],
  ["maskable-512.png", 512, 0.7],
]) {
  writeFileSync(new URL(name, dir), icon(size, scale));
}
console.log("wrote public/icons/*.png");
