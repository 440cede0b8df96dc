// The process-wide "this instance is stopping" signal (SIGTERM). On it, the
// instance stops background work, ends its server-sent event streams and
// long-polls early (each with a normal, complete answer), and reports itself
// not ready, so that Next's own handler, which stops accepting connections
// and waits for in-flight requests, can finish quickly and cleanly.
const g = globalThis as unknown as { countersignShutdown?: AbortController };

function controller(): AbortController {
  g.countersignShutdown ??= new AbortController();
  return g.countersignShutdown;
}

export function shutdownSignal(): AbortSignal {
  return controller().signal;
}

export function isShuttingDown(): boolean {
  return controller().signal.aborted;
}

export function beginShutdown(): void {
  controller().abort(new Error("shutting down"));
}
