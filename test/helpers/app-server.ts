// Starts the real, built app (`npm start`'s entry point in production mode,
// so it migrates but seeds nothing) on a fresh database, and stops it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { entryPointArgs } from "./entry-points";

export type AppServer = {
  baseUrl: string;
  env: Record<string, string>;
  stop: () => Promise<void>;
  child: ChildProcess;
  output: () => string;
};

const running = new Set<ChildProcess>();

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone already
  }
}

// Vitest can end a process without the tests' own clean-up (a close that
// timed out): servers still running then would outlive it, busy for good.
process.once("exit", () => {
  for (const child of running) signalGroup(child, "SIGKILL");
});

/**
 * `publicUrl`: the address users see (APP_URL/AUTH_URL), e.g. https behind a TLS proxy; the server itself listens on plain http.
 * `viaTsx`: through tsx, as `npm start` runs it (a test of the launcher's own process chain), not the bundle.
 */
export async function startAppServer(opts: { port: number; env: Record<string, string>; publicUrl?: string; viaTsx?: boolean }): Promise<AppServer> {
  const root = process.cwd();
  if (!existsSync(join(root, process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npx next build` first (`npm test` does it before Vitest).");
  }
  const baseUrl = `http://localhost:${opts.port}`;
  const env: Record<string, string> = {
    // Test receivers listen on 127.0.0.1: the documented switch for that (a test may pass "0").
    CALLBACK_ALLOW_LOOPBACK: "1",
    ...opts.env,
    NODE_ENV: "production",
    PORT: String(opts.port),
    APP_URL: opts.publicUrl ?? baseUrl,
    AUTH_URL: opts.publicUrl ?? baseUrl,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  let out = "";
  // A process group of its own (the launcher and the server it starts), so
  // stopping it stops both, and whatever is left when the tests exit dies too.
  const child = spawn(process.execPath, entryPointArgs("start", { viaTsx: opts.viaTsx }), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited early (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${baseUrl}/signin`, { redirect: "manual" });
      if (r.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      signalGroup(child, "SIGKILL");
      throw new Error(`app did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    baseUrl,
    env,
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        signalGroup(child, "SIGTERM");
        setTimeout(() => signalGroup(child, "SIGKILL"), 10_000).unref();
      }),
  };
}
