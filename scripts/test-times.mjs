// `node scripts/test-times.mjs [N]`: the slowest Vitest files and Playwright
// tests of the last `npm test` (its reporters' JSON in .tmp/test-results/),
// N of each (20 unless given), as Markdown tables for docs/testing.md.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const results = join(root, ".tmp", "test-results");
const limit = Number(process.argv[2] ?? 20);
if (!(limit > 0)) {
  console.error("usage: node scripts/test-times.mjs [N]");
  process.exit(64);
}

const read = (file) => (existsSync(join(results, file)) ? JSON.parse(readFileSync(join(results, file), "utf8")) : null);
const seconds = (ms) => (ms / 1000).toFixed(1);

const files = [];
const lanes = existsSync(results) ? readdirSync(results).filter((f) => /^vitest-.*\.json$/.test(f)) : [];
for (const file of lanes) {
  const run = file.slice("vitest-".length, -".json".length);
  const report = read(file);
  for (const file of report?.testResults ?? []) {
    files.push({ run, name: relative(root, file.name), ms: file.endTime - file.startTime, tests: file.assertionResults.length });
  }
}
if (files.length) {
  const total = files.reduce((n, f) => n + f.ms, 0);
  console.log(`Vitest: ${files.length} files, ${files.reduce((n, f) => n + f.tests, 0)} tests, ${seconds(total)} s summed over files\n`);
  console.log("| s | process | file | tests |\n|---:|---|---|---:|");
  for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, limit)) console.log(`| ${seconds(f.ms)} | ${f.run} | ${f.name} | ${f.tests} |`);
  console.log("");
}

const playwright = read("playwright.json");
if (playwright) {
  const tests = [];
  const walk = (suite, file) => {
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests) tests.push({ name: `${file ?? suite.file}: ${spec.title}`, ms: t.results.reduce((n, r) => n + r.duration, 0) });
    for (const child of suite.suites ?? []) walk(child, file ?? suite.file);
  };
  for (const suite of playwright.suites) walk(suite);
  console.log(
    `Playwright: ${tests.length} tests, ${seconds(tests.reduce((n, t) => n + t.ms, 0))} s summed, ${seconds(playwright.stats.duration)} s wall\n`,
  );
  console.log("| s | test |\n|---:|---|");
  for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, limit)) console.log(`| ${seconds(t.ms)} | ${t.name.replaceAll("|", "\\|")} |`);
}
if (!files.length && !playwright) {
  console.error(`No results in ${relative(root, results)}: run npm test first.`);
  process.exit(1);
}
