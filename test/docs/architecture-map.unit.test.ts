// docs/architecture.md's folder map matches the tree: every folder it names
// exists, and every folder of lib/ and app/ is named in it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

/** The folders the map names, as paths from the repository root (two spaces of indent per level). */
function mappedFolders(): string[] {
  const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Folder map"));
  const block = section.slice(section.indexOf("```") + 3, section.indexOf("```", section.indexOf("```") + 3));
  const stack: string[] = [];
  const folders: string[] = [];
  for (const line of block.split("\n")) {
    const m = /^( *)(\S+\/)(\s|$)/.exec(line);
    if (!m) continue;
    stack.splice(m[1]!.length / 2, Infinity, m[2]!);
    folders.push(stack.join(""));
  }
  return folders;
}

const subfolders = (dir: string) =>
  readdirSync(join(root, dir)).filter((name) => statSync(join(root, dir, name)).isDirectory() && !name.startsWith("["));

describe("the architecture document's folder map", () => {
  const mapped = mappedFolders();

  it("names only folders that exist", () => {
    expect(mapped.length).toBeGreaterThan(30);
    expect(mapped.filter((path) => !statSync(join(root, path), { throwIfNoEntry: false })?.isDirectory())).toEqual([]);
  });

  it("names every folder of lib/ and app/", () => {
    for (const dir of ["lib", "app"]) {
      const missing = subfolders(dir).filter((name) => !mapped.includes(`${dir}/${name}/`));
      expect(missing, `${dir}/ folders missing from docs/architecture.md`).toEqual([]);
    }
  });
});
