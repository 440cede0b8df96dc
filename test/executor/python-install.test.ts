// `pip install ./clients/python` into a fresh virtual environment, offline
// (build dependencies come from the machine's local package mirror), then the
// approval port's tests, a live approval run and the README's example with
// the installed package, from a directory outside the repository.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import { resultOf, runPortCheck } from "../helpers/python-port";
import { approvalIdIn, codeBlock, runLines } from "../helpers/tarball-project";
import { linesNotInExample, readmeExcerpt } from "../helpers/readme-excerpt";

const source = resolve("clients/python");
const work = mkdtempSync(join(tmpdir(), "countersign-pip-"));
const python = join(work, "venv", "bin", "python");
const outside = join(work, "outside");
// No PYTHONPATH: only what pip installed may be imported. PIP_RETRIES=0: an
// index this machine cannot reach is given up on at once, not after pip's
// five retries with back-off (about 8 s per install); a reachable one works as before.
const env: NodeJS.ProcessEnv = { ...process.env, PIP_RETRIES: "0" };
delete env.PYTHONPATH;

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: outside, env, encoding: "utf8", timeout: 170_000 });
  expect(r.status, `${cmd} ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

describe("Python package, installed with pip", () => {
  const app = appFor("sqlite");
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("installs into a fresh venv and passes the approval port's tests from outside the repository", { timeout: 180_000 }, () => {
    mkdirSync(outside);
    run("python3", ["-m", "venv", join(work, "venv")]);
    run(join(work, "venv", "bin", "pip"), ["install", "--no-cache-dir", source]);
    // The build leaves nothing behind in the source tree.
    expect(readdirSync(source).filter((n) => n === "build" || n === "dist" || n.endsWith(".egg-info"))).toEqual([]);

    const where = run(python, ["-c", "import countersign; print(countersign.__file__)"]);
    expect(where.stdout.trim().startsWith(join(work, "venv"))).toBe(true);
    expect(existsSync(join(where.stdout.trim(), "..", "py.typed"))).toBe(true);

    for (const name of ["test_approval_port.py", "test_receipts.py"]) copyFileSync(join(source, name), join(outside, name));
    const tests = run(python, ["-m", "unittest", "discover", "-s", outside, "-p", "test_approval_port.py"]);
    expect(tests.stderr).toMatch(/Ran \d+ tests?[\s\S]*\nOK/);
  });

  it.runIf(app)("runs an approval against the live app with the installed package", { timeout: 60_000 }, async () => {
    const f = await import("../helpers/fixtures");
    const { recordReview } = await import("@/lib/reviews/record-review");
    const svc = await f.makeService();
    const reviewer = await f.makeUser(["reviewer"]);
    copyFileSync(join(source, "live_port_check.py"), join(outside, "live_port_check.py"));

    const events = await runPortCheck({
      python,
      script: join(outside, "live_port_check.py"),
      scenarios: ["approve", "timeout"],
      service: svc,
      baseUrl: app!.baseUrl,
      cwd: outside,
      env: { ...env, COUNTERSIGN_USE_INSTALLED: "1" },
      onRequested: async (e) => {
        if (e.scenario === "approve") await recordReview(reviewer.id, { approvalId: String(e.approval_id), decision: "approve" });
      },
    });
    expect(resultOf(events, "approve")).toMatchObject({ allowed: true, code: "approved" });
    expect(String(resultOf(events, "approve").package).startsWith(join(work, "venv"))).toBe(true);
    expect(resultOf(events, "timeout")).toMatchObject({ allowed: false, code: "timeout" });
  });

  it.runIf(app)(
    "runs the README's example unchanged with the installed package: approved, then denied with the reason",
    { timeout: 60_000 },
    async () => {
      const f = await import("../helpers/fixtures");
      const { recordReview } = await import("@/lib/reviews/record-review");
      const reviewer = await f.makeUser(["reviewer"]);
      const example = codeBlock(join(source, "README.md"), "python");
      // The project README shows an excerpt of this same example.
      expect(linesNotInExample(readmeExcerpt("(clients/python/README.md)", "python"), example)).toEqual([]);
      writeFileSync(join(outside, "readme_example.py"), example);

      async function runExample(decision: "approve" | "deny", reason: string) {
        const svc = await f.makeService();
        const exampleEnv = {
          ...env,
          COUNTERSIGN_URL: app!.baseUrl,
          COUNTERSIGN_SLUG: svc.slug,
          COUNTERSIGN_WEBHOOK_SECRET: svc.webhook_secret,
          COUNTERSIGN_API_TOKEN: svc.api_token,
        };
        return runLines(python, ["readme_example.py"], { cwd: outside, env: exampleEnv }, async (line) => {
          const id = approvalIdIn(line);
          if (id) await recordReview(reviewer.id, { approvalId: id, decision, reason });
        });
      }

      expect((await runExample("approve", "ticket 9")).at(-1)).toBe("refunded 10 on A-1");
      expect((await runExample("deny", "wrong order")).at(-1)).toBe("not run (denied): denied: wrong order");
    },
  );
});
