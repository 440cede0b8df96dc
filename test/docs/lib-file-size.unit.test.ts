// No hand-written file under lib/ is over 350 lines: a module that grows past
// that is split by what it does (lib/env.ts became lib/env/, one file per
// group of variables). Prisma's generated client and the tests do not count.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const MAX_LINES = 350;

function handWrittenFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return relative(root, path) === join("lib", "db", "generated") ? [] : handWrittenFiles(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

describe(`lib/ files stay at ${MAX_LINES} lines or fewer`, () => {
  const files = handWrittenFiles(join(root, "lib")).map((path) => relative(root, path));

  it("looks at every hand-written module, and not at the generated client or the tests", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain(join("lib", "env.ts"));
    expect(files).toContain(join("lib", "notifications", "send-worker.mjs"));
    expect(files.filter((path) => path.startsWith(join("lib", "db", "generated")) || path.endsWith(".test.ts"))).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const tooLong = files
      .map((path) => ({ path, lines: lineCount(readFileSync(join(root, path), "utf8")) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(tooLong, "split these by what they do").toEqual([]);
  });
});
