// Runs once when a server instance starts (Next.js): background workers.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startBackgroundWork } = await import("./lib/background");
  startBackgroundWork();
}
