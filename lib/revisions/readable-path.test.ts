import { describe, expect, it } from "vitest";
import { readablePath } from "./readable-path";

describe("readablePath", () => {
  it.each([
    ["/amount", "amount"],
    ["/rows/0/note", "rows › 0 › note"],
    ["/a~1b/c~0d", "a/b › c~d"],
    ["/items/-", "items › (end)"],
    ["/", '""'],
    ["", "(all arguments)"],
    ["amount", "amount"],
  ])("%s reads %s", (pointer, text) => {
    expect(readablePath(pointer)).toBe(text);
  });
});
