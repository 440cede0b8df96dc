// Search within a request's arguments: every key and value whose shown text
// contains the query (case-insensitive) anywhere in the arguments, as a tree of
// just the matches and their containers, each with its position, within bounds.
import { describe, expect, it } from "vitest";
import { resolvePath, type BranchView, type Json, type NodeView } from "./bounded-tree";
import { searchArguments, shownText, walkNodes } from "./argument-search";
import { segmentText } from "./reveal";

const textOf = (n: NodeView) => (n.k === "leaf" ? n.segments.map(segmentText).join("") : "");

/** The path (positions) of every leaf in a search tree. */
function leafPaths(tree: BranchView): number[][] {
  const out: number[][] = [];
  const visit = (b: BranchView, path: number[]) =>
    b.children.forEach((c) => (c.k === "leaf" ? out.push([...path, c.i!]) : visit(c, [...path, c.i!])));
  visit(tree, []);
  return out;
}

describe("searchArguments", () => {
  const args = {
    customer: { name: "Ana Lima", email: "[redacted:email]" },
    records: Array.from({ length: 2_000 }, (_, i) => ({ n: i, note: i === 1_500 ? "the NEEDLE is here" : "hay" })),
    Needle: 1,
  };

  it("finds a value deep beyond the first render, case-insensitively, with its path", () => {
    const r = searchArguments(args, "needle");
    expect(r.total).toBe(2); // the key "Needle" and the deep note
    expect(r.shown).toBe(2);
    const paths = leafPaths(r.tree);
    expect(paths).toContainEqual([1, 1_500, 1]);
    expect(resolvePath(args, [1, 1_500, 1])).toEqual({ kind: "string", value: "the NEEDLE is here" });
    const records = r.tree.children.find((c) => c.i === 1)!;
    expect(records).toMatchObject({ k: "branch", type: "array", size: 2_000, partial: true });
  });

  it("matches keys, numbers and redaction markers as they are shown", () => {
    expect(searchArguments(args, "EMAIL").total).toBe(1); // the key (the value is "[redacted:email]": also one node)
    expect(searchArguments(args, "redacted:").total).toBe(1);
    expect(searchArguments(args, "1999").total).toBe(1);
    expect(searchArguments(args, "nothing like this").total).toBe(0);
  });

  it("searches the revealed text: a hidden character is found by its escape, never as itself", () => {
    const spoof = { account: "AC-\u202E9876", "amount\u200B": 5 };
    expect(searchArguments(spoof, "U+202E").total).toBe(1);
    expect(searchArguments(spoof, "amount⟨U+200B⟩").total).toBe(1);
    expect(shownText("a\u202Eb")).toBe("a⟨U+202E⟩b");
    expect(shownText('say "hi"\n')).toBe('say \\"hi\\"\\n');
    const leaf = [...walkNodes(searchArguments(spoof, "9876").tree)].find((n) => n.k === "leaf")!;
    expect(textOf(leaf)).toBe('"AC-⟨U+202E⟩9876"');
  });

  it("counts every match but shows a bounded number", () => {
    const many = { rows: Array.from({ length: 5_000 }, () => "match") };
    const r = searchArguments(many, "match", undefined, { matches: 100, nodes: 300 });
    expect(r.total).toBe(5_000);
    expect(r.shown).toBe(100);
    expect([...walkNodes(r.tree)].length).toBe(101);
    const tight = searchArguments(many, "match", undefined, { matches: 100, nodes: 10 });
    expect(tight.shown).toBe(9);
  });

  it("survives deep nesting", () => {
    let deep: Json = "bottom";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const r = searchArguments({ deep }, "bottom");
    expect(r.total).toBe(1);
    expect(r.shown).toBe(0); // the path alone is over the node bound: counted, not shown
  });
});
