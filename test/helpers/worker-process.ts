// Runs a TypeScript helper script in its own Node process (tsx), with this
// process's environment, and talks to it in JSON lines.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export type Worker = { child: ChildProcess; send: (line: string) => void; next: () => Promise<Record<string, unknown>>; stop: () => void };

export async function startWorker(script: string, env: Record<string, string | undefined> = {}, args: string[] = []): Promise<Worker> {
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`worker ${script} ended: ${stderr}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  await next(); // {"ready": true}
  return { child, send: (line) => child.stdin!.write(line + "\n"), next, stop: () => child.kill("SIGKILL") };
}
