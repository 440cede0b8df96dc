// An empty npm project in a temporary folder with workspace packages
// installed from their `npm pack` tarballs, as a user outside this
// repository would get them; and README examples run as programs.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const root = resolve(import.meta.dirname, "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

export type PackedFile = { path: string };

/**
 * Packs packages/<name> as built by `npm test`'s first step (scripts/build-packages.mjs),
 * without its prepack: recompiling would empty dist/ while other test processes
 * import it. Returns the tarball's path and its file list.
 */
export function packWorkspace(name: string, destination: string): { tarball: string; files: string[] } {
  const out = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
    cwd: join(root, "packages", name),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const packed = JSON.parse(out.slice(out.indexOf("["))) as Array<{ filename: string; files: PackedFile[] }>;
  const first = packed[0]!;
  return { tarball: join(destination, first.filename), files: first.files.map((f) => f.path) };
}

/** A fresh project folder with the tarballs installed (npm's cache first, then the registry). */
export function projectWith(tarballs: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-pack-"));
  const project = join(dir, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "tarball-user", private: true, type: "module" }));
  execFileSync(npm, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error", ...tarballs], {
    cwd: project,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return project;
}

/** The first fenced code block of a language in a Markdown file: what a reader would copy. */
export function codeBlock(markdownPath: string, language: string): string {
  const text = readFileSync(markdownPath, "utf8");
  const match = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(text);
  if (!match) throw new Error(`${markdownPath} has no ${language} code block`);
  return match[1]!;
}

/**
 * Runs a program (a README example), calling onLine for each line it prints
 * (awaited, so the test can act, e.g. vote, before reading on); returns every
 * line and throws with stderr if the program fails.
 */
export async function runLines(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  onLine: (line: string) => Promise<void>,
): Promise<string[]> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    await onLine(line);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}: ${stderr}`);
  return lines;
}

/** The approval id in a review URL a README example printed as "waiting for a reviewer: URL". */
export function approvalIdIn(line: string): string | null {
  const url = /^waiting for a reviewer: (\S+)$/.exec(line)?.[1];
  return url ? new URL(url).pathname.split("/").pop()! : null;
}
