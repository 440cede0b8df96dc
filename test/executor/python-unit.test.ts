// The Python client's own unit tests (standard library unittest) run with
// the machine's python3 as part of npm test.
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

it("passes the Python client's unittest suite", () => {
  const r = spawnSync("python3", ["-m", "unittest", "discover", "-s", "clients/python", "-p", "test_*.py"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/Ran \d+ tests?/);
  expect(r.stderr).toMatch(/\nOK/);
});
