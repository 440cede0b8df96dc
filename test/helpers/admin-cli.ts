// The admin command line (scripts/admin.ts) as an operator runs it, in a
// fresh process with the environment the test gives it.
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
