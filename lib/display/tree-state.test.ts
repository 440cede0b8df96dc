// The argument viewer's tree as it grows: pages of children and of long
// strings added by path, in order and only once; what is still not loaded;
// which containers start collapsed; the search highlight.
import { describe, expect, it } from "vitest";
import { childrenPage, firstRender, LIMITS, resolvePath, stringPage, type BranchView, type Json } from "./bounded-tree";
import { searchArguments } from "./argument-search";
import { segmentText } from "./reveal";
import { addChildren, addText, countLabel, highlight, notLoadedText, openByDefault, unloaded } from "./tree-state";

const SMALL = { ...LIMITS, nodes: 20, chars: 2_000, children: 5, stringHead: 10, stringPage: 7 };

/** Loads everything the way Expand all and Show all do, and checks it against the source. */
function loadAll(args: Json, root: BranchView): BranchView {
  let tree = root;
  for (let rest = unloaded(tree); rest.length > 0; rest = unloaded(tree)) {
    const u = rest[0]!;
    const target = resolvePath(args, u.path);
    if (target?.kind !== "container") throw new Error("no container");
    tree = addChildren(tree, u.path, u.from, childrenPage(target.value, u.from, SMALL).children);
  }
  return tree;
}

describe("tree state", () => {
  const args = { rows: Array.from({ length: 23 }, (_, i) => ({ n: i, tags: ["a", "b"] })), note: "0123456789abcdefghij" };

  it("adds pages of children by path until nothing is left, then says so", () => {
    const root = firstRender(args, SMALL);
    expect(unloaded(root).length).toBeGreaterThan(0);
    expect(notLoadedText(root)).toMatch(/items? .*in \d+ containers?|keys? .*in \d+ containers?/);
    const full = loadAll(args, root);
    expect(notLoadedText(full)).toBeNull();
    const rows = full.children[0]!;
    expect(rows.k === "branch" && rows.children.length).toBe(23);
    // Unchanged parts are shared; a page for a position already loaded is ignored.
    expect(addChildren(full, [0], 5, [])).toEqual(full);
    expect(addChildren(full, [9, 9], 0, [])).toBe(full);
  });

  it("adds the rest of a long string until it is whole", () => {
    let tree = firstRender(args, SMALL);
    const leaf = () => tree.children[1]!;
    expect(leaf()).toMatchObject({ k: "leaf", rest: 10, at: 10 });
    for (let next: number | null = 10; next !== null;) {
      const page = stringPage(args.note, next, SMALL);
      tree = addText(tree, [1], "value", page.segments, page.next);
      next = page.next;
    }
    const l = leaf();
    expect(l.k === "leaf" && { rest: l.rest, text: l.segments.map(segmentText).join("") }).toEqual({ rest: 0, text: `"${args.note}"` });
  });

  it("turns a search result's container whole when it loads from the start", () => {
    const found = searchArguments(args, "20").tree;
    const rows = found.children[0]!;
    expect(rows).toMatchObject({ i: 0, partial: true });
    expect(unloaded(found)).toEqual([]); // matches only: nothing counts as "more"
    const page = childrenPage(args.rows, 0, SMALL);
    const after = addChildren(found, [0], 0, page.children);
    expect(after.children[0]).toMatchObject({ partial: false, size: 23 });
    expect(after.children[0]!.k === "branch" && after.children[0]!.children.length).toBe(page.children.length);
  });

  it("starts big or deep containers collapsed", () => {
    expect(openByDefault(1, 3)).toBe(true);
    expect(openByDefault(1, 42)).toBe(false);
    expect(openByDefault(3, 2)).toBe(false);
    expect(openByDefault(1, 0)).toBe(false);
    expect(countLabel("array", 12_345)).toBe("12,345 items");
    expect(countLabel("object", 1)).toBe("1 key");
  });

  it("marks the query's occurrences, case-insensitively", () => {
    expect(highlight("Needle in a needle", "NEEDLE")).toEqual([
      { text: "Needle", hit: true },
      { text: " in a ", hit: false },
      { text: "needle", hit: true },
    ]);
    expect(highlight("abc", "")).toEqual([{ text: "abc", hit: false }]);
  });
});
