// The project README shows each package's example as a short excerpt under
// a link to the package's README, where the whole example is, and that
// example is what the package's tests run. An excerpt may leave lines out
// but not change one: each of its lines is a line of the example, in the
// example's order, so the README never shows code nobody ran.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The project README's first `language` code block after the first line that mentions `marker` (the package's link). */
export function readmeExcerpt(marker: string, language: string, root = process.cwd()): string {
  const text = readFileSync(join(root, "README.md"), "utf8");
  const at = text.split("\n").findIndex((line) => line.includes(marker));
  if (at === -1) throw new Error(`README.md does not mention ${marker}`);
  const after = text.split("\n").slice(at).join("\n");
  const match = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(after);
  if (!match) throw new Error(`README.md has no ${language} code block after ${marker}`);
  return match[1]!;
}

/** The excerpt's lines that are not lines of the example in order (none: it is a true excerpt). */
export function linesNotInExample(excerpt: string, example: string): string[] {
  const lines = example.split("\n");
  let from = 0;
  const missing: string[] = [];
  for (const line of excerpt.split("\n")) {
    if (line.trim() === "") continue;
    const found = lines.indexOf(line, from);
    if (found === -1) missing.push(line);
    else from = found + 1;
  }
  return missing;
}
