// Runs a helper entry point (test/helpers/entry-points.ts) in its own Node
// process, with this process's environment, and talks to it in JSON lines.
// The crash tests start a new process twenty times over; from the bundle
// each start is plain Node.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { entryPointArgs, type EntryPoint } from "./entry-points";

export type Worker = { child: ChildProcess; send: (line: string) => void; next: () => Promise<Record<string, unknown>>; stop: () => void };

export async function startWorker(
  name: Extract<EntryPoint, "review-worker" | "check-decisions">,
  env: Record<string, string | undefined> = {},
  args: string[] = [],
): Promise<Worker> {
  const child = spawn(process.execPath, [...entryPointArgs(name), ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error(`worker ${name} ended: ${stderr}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  await next(); // {"ready": true}
  return { child, send: (line) => child.stdin!.write(line + "\n"), next, stop: () => child.kill("SIGKILL") };
}
