// GET /api/metrics for the tests: scrape an instance, check the text with
// Prometheus's own `promtool check metrics`, and read samples out of it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

export const PROMTOOL = "/usr/bin/promtool";

export async function scrape(base: string, token: string): Promise<{ status: number; contentType: string; body: string }> {
  const r = await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, contentType: r.headers.get("content-type") ?? "", body: await r.text() };
}

/** `promtool check metrics` on the text (stdin): its exit code and what it printed (lint problems, parse errors). */
export async function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  if (!existsSync(PROMTOOL)) {
    throw new Error(
      `promtool not found at ${PROMTOOL}: the metrics tests check GET /api/metrics with Prometheus's own parser. ` +
        "Install Debian's package: `apt-get install -y prometheus` (.ci/run does it on a fresh machine).",
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

export type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of an exposition text (the text format our registry writes: no timestamps). */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    const raw = m[3]!;
    out.push({ name: m[1]!, labels, value: raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw) });
  }
  return out;
}

/** The value of one series, or undefined when the text does not have it. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const hit = samples(text).find(
    (s) =>
      s.name === name && Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hit?.value;
}

/** The sum of one series over several instances' texts (0 where absent). */
export function sumOf(texts: readonly string[], name: string, labels: Record<string, string> = {}): number {
  return texts.reduce((sum, t) => sum + (valueOf(t, name, labels) ?? 0), 0);
}

/** Whether the text has any sample of the metric family. */
export function hasFamily(text: string, name: string): boolean {
  return samples(text).some((s) => s.name === name);
}
