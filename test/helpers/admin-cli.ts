// The admin command line (scripts/admin.ts) as an operator runs it, in a
// fresh tsx process with the environment the test gives it.
import { execFile } from "node:child_process";

export type CliResult = { code: number; stdout: string; stderr: string };

export function runAdminCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/admin.ts", ...args],
      { env, timeout: timeoutMs },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
