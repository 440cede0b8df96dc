// The Python client's own unit tests (standard library unittest) run with
// the machine's python3 as part of npm test.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

it("passes the Python client's unittest suite", () => {
  const r = spawnSync("python3", ["-m", "unittest", "discover", "-s", "clients/python", "-p", "test_*.py"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/Ran \d+ tests?/);
  expect(r.stderr).toMatch(/\nOK/);
  // `npm test` prints how many Python test cases ran beside Vitest's and Playwright's counts.
  const results = process.env.COUNTERSIGN_TEST_RESULTS;
  if (results) writeFileSync(join(results, "python.json"), JSON.stringify({ ran: Number(/Ran (\d+) tests?/.exec(r.stderr)![1]) }));
});
