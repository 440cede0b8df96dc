// Preloaded by `npm run bench -- --profile` through NODE_OPTIONS=--require
// (Node refuses --cpu-prof there): in the app server process only, starts
// V8's sampling profiler and writes a .cpuprofile to BENCH_PROFILE_DIR when
// the process is told to stop or exits. SIGUSR2 ends a segment: the profile
// so far is written as NN-<label>.cpuprofile, the label read from the file
// `label` in that directory (the bench writes the phase name there first),
// and a new segment starts. Every other process is left alone.
"use strict";
const { Session } = require("node:inspector");
const { mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.env.BENCH_PROFILE_DIR;
// The app server: scripts/server/serve.mjs (what `npm start` runs), or a plain `next start`.
const isNextStart =
  /scripts\/server\/serve\.mjs$/.test(process.argv[1] ?? "") ||
  (/next\/dist\/bin\/next$/.test(process.argv[1] ?? "") && process.argv.includes("start"));

if (dir && isNextStart) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 500 });
  session.post("Profiler.start");
  let segment = 0;
  let written = false;
  const save = (label) => {
    // A session on this thread answers synchronously, so this works in "exit".
    session.post("Profiler.stop", (err, res) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      const name = `${String(++segment).padStart(2, "0")}-${label.replace(/[^A-Za-z0-9_-]/g, "_")}.cpuprofile`;
      writeFileSync(join(dir, name), JSON.stringify(res.profile));
    });
  };
  process.on("SIGUSR2", () => {
    let label = "segment";
    try {
      label = readFileSync(join(dir, "label"), "utf8").trim() || label;
    } catch {
      // no label written
    }
    save(label);
    session.post("Profiler.start");
  });
  const write = () => {
    if (written) return;
    written = true;
    save("end");
  };
  // Registered before Next's own handlers, so it runs first.
  process.once("SIGTERM", write);
  process.once("SIGINT", write);
  process.once("exit", write);
}
