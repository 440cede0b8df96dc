// Runs clients/python/live_port_check.py (the approval port against the live
// app) and lets the test decide each request the moment the port has sent it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export type PortEvent = { event: "requested" | "result"; scenario: string } & Record<string, unknown>;

type Options = {
  python: string;
  script: string;
  scenarios: string[];
  service: { slug: string; webhook_secret: string; api_token: string };
  baseUrl: string;
  cwd?: string;
  /** The whole environment of the script (default: this process's). */
  env?: NodeJS.ProcessEnv;
  onRequested: (event: PortEvent) => Promise<void>;
};

/** Every event the script printed, in order; throws with its stderr if it fails. */
export async function runPortCheck(o: Options): Promise<PortEvent[]> {
  const env: NodeJS.ProcessEnv = {
    ...(o.env ?? process.env),
    COUNTERSIGN_URL: o.baseUrl,
    COUNTERSIGN_SLUG: o.service.slug,
    COUNTERSIGN_WEBHOOK_SECRET: o.service.webhook_secret,
    COUNTERSIGN_API_TOKEN: o.service.api_token,
  };
  const py = spawn(o.python, [o.script, ...o.scenarios], { cwd: o.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  py.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => py.on("close", resolve));
  const events: PortEvent[] = [];
  for await (const line of createInterface({ input: py.stdout })) {
    const event = JSON.parse(line) as PortEvent;
    events.push(event);
    if (event.event === "requested") await o.onRequested(event);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${o.script} exited with ${code}: ${stderr}`);
  return events;
}

/** The result line of one scenario. */
export function resultOf(events: PortEvent[], scenario: string): PortEvent {
  const found = events.find((e) => e.event === "result" && e.scenario === scenario);
  if (!found) throw new Error(`no result for ${scenario}`);
  return found;
}
