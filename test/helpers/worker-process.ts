// Runs a TypeScript helper script in its own Node process, with this
// process's environment, and talks to it in JSON lines. The script is
// bundled once per test process with esbuild (dependencies stay in
// node_modules), so each start is plain Node: the crash tests start a new
// process twenty times over, and tsx's start-up under a loaded machine was
// most of their time.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

export type Worker = { child: ChildProcess; send: (line: string) => void; next: () => Promise<Record<string, unknown>>; stop: () => void };

const bundles = new Map<string, Promise<string>>();

/** The script bundled into .tmp/ (inside the repository, so packages resolve), once per script and process. */
function bundled(script: string): Promise<string> {
  let made = bundles.get(script);
  if (!made) {
    const outfile = join(".tmp", `test-workers-${process.pid}`, script.replaceAll("/", "_").replace(/\.ts$/, ".mjs"));
    made = import("esbuild").then(async ({ build }) => {
      await build({
        entryPoints: [script],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        packages: "external",
        conditions: ["react-server"],
        logLevel: "warning",
      });
      return outfile;
    });
    bundles.set(script, made);
  }
  return made;
}

export async function startWorker(script: string, env: Record<string, string | undefined> = {}, args: string[] = []): Promise<Worker> {
  const child = spawn(process.execPath, ["--conditions=react-server", await bundled(script), ...args], {
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
