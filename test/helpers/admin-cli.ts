// The admin command line (scripts/admin.ts) two ways: as an operator runs it,
// in a fresh process with the environment the test gives it (runAdminCli),
// and through the same dispatcher in this test process (adminInProcess), for
// suites that check what commands do rather than how the process starts and
// exits. test/admin/cli-help.test.ts keeps the process's own behaviour
// (streams and exit codes) covered.
import { execFile } from "node:child_process";
import { entryPointArgs } from "./entry-points";

export type CliResult = { code: number; stdout: string; stderr: string };

export function runAdminCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...entryPointArgs("admin"), ...args], { env, timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Runs one admin command through scripts/admin/run.ts in this process, on
 * the database and configuration this test file's process.env names (set
 * them before the first call: lib/env reads them once per file).
 */
export async function adminInProcess(args: string[]): Promise<CliResult> {
  const { runAdmin } = await import("../../scripts/admin/run");
  let stdout = "";
  let stderr = "";
  const out = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
  };
  const code = await runAdmin(args, out, { keepConnection: true });
  return { code, stdout, stderr };
}
