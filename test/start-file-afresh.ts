// Integration files share their Vitest worker process, one file after another
// (`isolate: false` in vitest.config.ts): a new process per file cost more
// than most files' own tests. So that each file still starts as it would in a
// new process, this runs before every file and undoes what the one before it
// left behind:
// - work still running in this process (background ticks, the change and
//   queue watchers, an audit-stream pass) is told to stop, and waited for: a
//   loop of the last file's modules, left running, would open the process-wide
//   database client again on that file's database, and the next file would
//   use it;
// - the process-wide database client is closed;
// - every process-wide value lib/ keeps on globalThis is dropped (lib/ names
//   them all `countersign…`, as properties or as Symbol.for keys);
// - environment variables are put back as they were before the first file;
// - fake timers, mocks and stubbed globals are undone;
// - the module registry is emptied, so the file loads lib/ afresh (and reads
//   the environment it sets up).
import { vi } from "vitest";

type Globals = Record<string | symbol, unknown> & {
  countersignStartEnv?: Record<string, string | undefined>;
  countersignDb?: { $disconnect(): Promise<void> };
  countersignBackground?: unknown;
  countersignChanges?: { watching: boolean };
  countersignQueueWatch?: { running: boolean; listeners: Set<unknown>; stop?: AbortController };
  countersignAuditStream?: { running?: Promise<void> };
};
const g = globalThis as unknown as Globals;
/** How long a loop of the last file may take to notice it should stop (a watcher's poll, a retry's pause). */
const STOP_WAIT_MS = 10_000;
const PREFIX = "countersign";

async function stopLeftoverWork(): Promise<void> {
  // The modules are still the last file's (cached): these stop its loops.
  const { beginShutdown } = await import("@/lib/shutdown");
  beginShutdown();
  if (g.countersignBackground) await (await import("@/lib/background")).stopBackgroundWork();
  const queueWatch = g.countersignQueueWatch;
  if (queueWatch) {
    queueWatch.listeners.clear();
    queueWatch.stop?.abort();
  }
  await g.countersignAuditStream?.running?.catch(() => undefined);
  const deadline = Date.now() + STOP_WAIT_MS;
  const busy = () => g.countersignChanges?.watching === true || g.countersignQueueWatch?.running === true;
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (busy()) console.warn("start-file-afresh: a watcher of the last file did not stop within 10 s");
}

function dropProcessGlobals(): void {
  for (const key of Reflect.ownKeys(g)) {
    const name = typeof key === "symbol" ? key.description : key;
    if (name?.startsWith(PREFIX) && key !== "countersignStartEnv") delete g[key];
  }
}

function restoreEnvironment(start: Record<string, string | undefined>): void {
  for (const name of Object.keys(process.env)) if (!(name in start)) delete process.env[name];
  for (const [name, value] of Object.entries(start)) process.env[name] = value;
}

if (!g.countersignStartEnv) {
  // The worker's first file: nothing to undo yet.
  g.countersignStartEnv = { ...process.env };
} else {
  await stopLeftoverWork();
  await g.countersignDb?.$disconnect().catch(() => undefined);
  dropProcessGlobals();
  restoreEnvironment(g.countersignStartEnv);
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.resetModules();
}
