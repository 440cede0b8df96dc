// `node scripts/bench/heap-summary.mjs A.heapsnapshot [B.heapsnapshot] [--top N]`:
// what a V8 heap snapshot holds, grouped by constructor (objects), by kind
// (strings, code, arrays, …), with counts and self sizes; given two, what
// grew from the first to the second. The soak takes them
// (`npm run bench -- --soak --heap-snapshots`) to tell a leak (a group that
// keeps growing) from a working set (the same groups, the same sizes).
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const top = argv.includes("--top") ? Number(argv[argv.indexOf("--top") + 1]) : 25;
const files = argv.filter((a, i) => !a.startsWith("--") && argv[i - 1] !== "--top");
if (files.length < 1 || files.length > 2 || !(top > 0)) {
  process.stderr.write("usage: node scripts/bench/heap-summary.mjs A.heapsnapshot [B.heapsnapshot] [--top N]\n");
  process.exit(2);
}

/** @returns {Map<string, { count: number; bytes: number }>} */
function groups(file) {
  const snap = JSON.parse(readFileSync(file, "utf8"));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf("type");
  const iName = fields.indexOf("name");
  const iSize = fields.indexOf("self_size");
  const nodes = snap.nodes;
  const out = new Map();
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    // Objects and closures by their constructor or function name; everything else by its kind.
    const key = type === "object" || type === "closure" ? `${type} ${snap.strings[nodes[i + iName]]}` : `(${type})`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += nodes[i + iSize];
    out.set(key, g);
  }
  return out;
}

const mib = (n) => (n / 1048576).toFixed(1);
const total = (m) => [...m.values()].reduce((s, g) => s + g.bytes, 0);
const a = groups(files[0]);
if (files.length === 1) {
  process.stdout.write(`${files[0]}: ${mib(total(a))} MiB in ${[...a.values()].reduce((s, g) => s + g.count, 0)} nodes\n`);
  for (const [k, g] of [...a].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top))
    process.stdout.write(`${mib(g.bytes).padStart(8)} MiB ${String(g.count).padStart(9)}  ${k}\n`);
} else {
  const b = groups(files[1]);
  process.stdout.write(`${mib(total(a))} MiB → ${mib(total(b))} MiB\n  Δ MiB     Δ count  group (MiB and count in the second)\n`);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys].map((k) => {
    const x = a.get(k) ?? { count: 0, bytes: 0 };
    const y = b.get(k) ?? { count: 0, bytes: 0 };
    return { k, db: y.bytes - x.bytes, dc: y.count - x.count, y };
  });
  for (const r of rows.sort((p, q) => Math.abs(q.db) - Math.abs(p.db)).slice(0, top))
    process.stdout.write(
      `${(r.db >= 0 ? "+" : "") + mib(r.db)}`.padStart(8) +
        `${(r.dc >= 0 ? "+" : "") + r.dc}`.padStart(12) +
        `  ${r.k} (${mib(r.y.bytes)} MiB, ${r.y.count})\n`,
    );
}
