import { describe, expect, it } from "vitest";
import { keyArguments } from "@/lib/queue/key-args";

describe("keyArguments", () => {
  it("takes the first scalar top-level values, skipping objects, arrays and null", () => {
    const args = { nested: { a: 1 }, list: [1, "x"], none: null, order_id: "1234", amount: 49.9, urgent: true };
    expect(keyArguments(JSON.stringify(args))).toEqual([
      { key: "order_id", value: "1234" },
      { key: "amount", value: "49.9" },
    ]);
    expect(keyArguments(JSON.stringify(args), 3)).toEqual([
      { key: "order_id", value: "1234" },
      { key: "amount", value: "49.9" },
      { key: "urgent", value: "true" },
    ]);
  });

  it("reads escapes exactly and shows redacted values as stored", () => {
    const text = JSON.stringify({ to: "[redacted:email]", 'q"uote': 'say "hi"\n\\ ok', "\u202e": "x" });
    expect(keyArguments(text, 3)).toEqual([
      { key: "to", value: "[redacted:email]" },
      { key: 'q"uote', value: 'say "hi"\n\\ ok' },
      { key: "\u202e", value: "x" },
    ]);
  });

  it("stops cleanly at a cut-off prefix and clips long values without splitting a character", () => {
    const text = JSON.stringify({ first: "a".repeat(50), blob: { deep: "x".repeat(100) }, later: 1 });
    expect(keyArguments(text.slice(0, 80))).toEqual([{ key: "first", value: "a".repeat(50) }]);
    expect(keyArguments(text.slice(0, 12))).toEqual([]);
    const long = keyArguments(JSON.stringify({ v: "😀".repeat(200) }))[0]!.value;
    expect(Array.from(long)).toHaveLength(121);
    expect(long.endsWith("😀…")).toBe(true);
  });

  it("gives nothing for arguments that are not an object", () => {
    for (const v of [[1, 2], "text", 5, null, {}]) expect(keyArguments(JSON.stringify(v))).toEqual([]);
    expect(keyArguments("not json")).toEqual([]);
  });
});
