// `node scripts/bench/profile-summary.mjs <dir | file.cpuprofile> [--segment NAME] [--top N] [--match TEXT]`
//
// Summarises V8 CPU profiles written by `npm run bench -- --profile` (one
// per bench phase of the app's `next start` process): self time by package
// or file and by function, and inclusive time of the frames whose function
// name or file contains --match. Given a directory, it lists the segments
// and details the one whose name contains --segment (default: the largest).
// Plain Node, no dependencies.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const target = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
if (!target) {
  process.stderr.write("usage: profile-summary.mjs <dir | file.cpuprofile> [--top N] [--match TEXT]\n");
  process.exit(2);
}
const top = args.includes("--top") ? Number(args[args.indexOf("--top") + 1]) : 25;
const match = args.includes("--match") ? args[args.indexOf("--match") + 1] : null;
const segment = args.includes("--segment") ? args[args.indexOf("--segment") + 1] : null;

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);
function busyShare(p) {
  let idle = 0;
  let all = 0;
  const fn = new Map(p.nodes.map((n) => [n.id, n.callFrame.functionName]));
  for (let i = 0; i < p.samples.length; i++) {
    all += p.timeDeltas[i] ?? 0;
    if (fn.get(p.samples[i]) === "(idle)") idle += p.timeDeltas[i] ?? 0;
  }
  return { seconds: all / 1e6, busy: all ? 1 - idle / all : 0 };
}

let file = target;
if (statSync(target).isDirectory()) {
  const files = readdirSync(target)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()
    .map((f) => join(target, f));
  if (!files.length) {
    process.stderr.write(`no .cpuprofile in ${target}\n`);
    process.exit(1);
  }
  process.stdout.write("segments (wall seconds sampled, share of it on the CPU):\n");
  for (const f of files) {
    const { seconds, busy } = busyShare(JSON.parse(readFileSync(f, "utf8")));
    process.stdout.write(
      `  ${f.slice(target.length).replace(/^\//, "").padEnd(40)} ${seconds.toFixed(1).padStart(6)} s  ${(busy * 100).toFixed(0).padStart(3)} % busy\n`,
    );
  }
  file = segment ? files.find((f) => f.slice(target.length).includes(segment)) : [...files].sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) {
    process.stderr.write(`no segment named like ${segment}\n`);
    process.exit(1);
  }
}
const prof = JSON.parse(readFileSync(file, "utf8"));

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const totalUs = [...self.values()].reduce((a, b) => a + b, 0);

function where(cf) {
  const url = cf.url || "";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith("node:")) return url;
  if (!url) return "(native/vm)";
  return url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
}
const label = (cf) => `${cf.functionName || "(anonymous)"} ${where(cf)}:${cf.lineNumber + 1}`;
const idle = IDLE;

const fnSelf = new Map();
const pkgSelf = new Map();
for (const [id, us] of self) {
  const cf = byId.get(id).callFrame;
  const key = idle.has(cf.functionName) ? cf.functionName : label(cf);
  fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
  const pk = idle.has(cf.functionName) ? cf.functionName : where(cf);
  pkgSelf.set(pk, (pkgSelf.get(pk) ?? 0) + us);
}

const ms = (us) => (us / 1000).toFixed(0).padStart(7) + " ms";
const pct = (us) => ((100 * us) / totalUs).toFixed(1).padStart(5) + " %";
const print = (title, map) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${ms(v)} ${pct(v)}  ${k}\n`);
};

process.stdout.write(`profile ${file}: ${(totalUs / 1e6).toFixed(1)} s sampled\n`);
print("self time by package / file", pkgSelf);
print("self time by function", fnSelf);

if (match) {
  // Inclusive time: a sample counts once for every distinct matching frame on its stack.
  const incl = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur).callFrame;
      const key = label(cf);
      if (!seen.has(key) && key.includes(match)) {
        seen.add(key);
        incl.set(key, (incl.get(key) ?? 0) + us);
      }
    }
  }
  print(`inclusive time of frames matching "${match}"`, incl);
}
