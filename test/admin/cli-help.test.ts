// Asking the admin command line for help is not an error: the usage goes to
// stdout and the exit code is 0. A missing or unknown command still exits 64
// with the usage on stderr. One of each runs as an operator runs it, in its
// own process (the streams and exit code are the entry point's); the other
// spellings go through the same dispatcher in this process.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { adminInProcess, runAdminCli } from "../helpers/admin-cli";

describe("admin command line: help", () => {
  // No database is opened for help; a data directory of its own keeps it from touching another's.
  const env = { ...process.env, COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-cli-help-")), DATABASE_URL: "file:./never-opened.db" };
  const expectUsage = (r: { code: number; stdout: string; stderr: string }) => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^usage: npm run admin -- <command>\n/);
    expect(r.stdout).toContain("  service add --slug S [--callback-url U]\n");
    expect(r.stdout).toContain("  audit verify [--checkpoint FILE] [--archive FILE…]\n");
    expect(r.stdout).toContain("  backup --out FILE\n");
    expect(r.stdout).toContain("  restore --in FILE\n");
  };

  it("prints the usage on stdout and exits 0 for --help, -h and help", async () => {
    expectUsage(await runAdminCli(["--help"], env));
    for (const args of [["--help"], ["-h"], ["help"]]) expectUsage(await adminInProcess(args));
  });

  it("prints one command's usage for <command> --help, without running it", async () => {
    const r = await adminInProcess(["service", "add", "--help"]);
    expect(r).toEqual({ code: 0, stdout: "usage: npm run admin -- service add --slug S [--callback-url U]\n", stderr: "" });
    // A command of one word.
    expect(await adminInProcess(["backup", "--help"])).toEqual({ code: 0, stdout: "usage: npm run admin -- backup --out FILE\n", stderr: "" });
  });

  it("takes -h as the value of a flag for that value, not as help", async () => {
    const { asksForHelp } = await import("../../scripts/admin/flags");
    expect(asksForHelp(["service", "add", "-h"])).toBe(true);
    expect(asksForHelp(["-h"])).toBe(true);
    expect(asksForHelp(["user", "add", "--email", "a@example.com", "--name", "-h"])).toBe(false);
    expect(asksForHelp(["user", "add", "--name=--help"])).toBe(false);
    expect(asksForHelp(["policy", "list", "--help"])).toBe(true);
  });

  it("exits 64 with the usage on stderr when the command is missing or unknown", async () => {
    const [process, none, unknown] = [
      await runAdminCli(["service", "explode"], env),
      await adminInProcess([]),
      await adminInProcess(["service", "explode"]),
    ];
    for (const r of [process, unknown]) {
      expect(r.code).toBe(64);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^error: unknown command: service explode\nusage: npm run admin -- <command>\n/);
    }
    expect(none.code).toBe(64);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/^error: no command\nusage: npm run admin -- <command>\n/);
  });
});
