// lib/ has no runtime import cycles: a module is fully loaded before anything
// that imports it runs. Type-only imports (erased at build) and dynamic
// imports (loaded on first use) do not count.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) && !/\.test\.tsx?$|\.d\.m?ts$/.test(name) ? [path] : [];
  });
}

/** The lib/ files `file` imports at run time, resolved to paths. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/^import\s+(type\s+)?([^"';]*?)\s*(?:from\s+)?["']([^"']+)["'];?$/gms)) {
    const [, typeOnly, clause, spec] = m;
    if (typeOnly) continue;
    // `import { type A, type B } from …` is erased too.
    const names = /^\{([^}]*)\}$/.exec(clause!.trim())?.[1];
    if (names !== undefined && names.split(",").every((n) => !n.trim() || n.trim().startsWith("type "))) continue;
    const base = spec!.startsWith("@/") ? join(root, spec!.slice(2)) : spec!.startsWith(".") ? join(dirname(file), spec!) : null;
    if (!base) continue;
    const resolved = [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, "index.ts")].find((p) => existsSync(p) && statSync(p).isFile());
    if (resolved?.startsWith(join(root, "lib"))) found.push(resolved);
  }
  return found;
}

/** Every group of modules that import one another in a circle (Tarjan's strongly connected components of more than one). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const at = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    at.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!at.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, at.get(w)!));
    }
    if (low.get(v) === at.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(relative(root, w));
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!at.has(v)) visit(v);
  return out;
}

describe("lib/ imports", () => {
  it("form no cycle at run time", () => {
    const files = sourceFiles(join(root, "lib"));
    const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
    expect([...graph.values()].flat().length).toBeGreaterThan(200);
    expect(cycles(graph)).toEqual([]);
  });

  it("finds a cycle where there is one", () => {
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"].map((x) => relative(root, x))]);
  });
});
