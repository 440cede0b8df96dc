// `npm start` is a chain of processes (npm, tsx, scripts/start.ts, then
// scripts/server/serve.mjs), each forwarding SIGINT and SIGTERM to the next.
// One killed outright (SIGKILL, a crashed supervisor) forwards nothing: the
// rest would be orphaned, still serving, their output piped to nobody (each
// log line failing, and the failure logged, in a loop). A process whose
// parent changed has lost its launcher; `onGone` then runs once.

/** Checks every second, without keeping the process alive. */
export function whenParentGone(onGone) {
  const parent = process.ppid;
  const check = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(check);
    onGone();
  }, 1000);
  check.unref();
}
