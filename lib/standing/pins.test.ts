// Pins: built only for values the source request holds, matched by value,
// bound or list, and by keyed digest for redacted values; never through a
// redacted key, and a shown pin never matches a hidden value.
import { describe, expect, it } from "vitest";
import { compileRedactor } from "../redaction";
import { redactArguments } from "../revisions/hidden-values";
import { buildPins, pinsMatch, pinWords, type Pin } from "./pins";

const redactor = compileRedactor();
const seen = (args: unknown) => redactArguments(redactor, "svc_1", args);
const storable = (_v: unknown) => true;

describe("pins", () => {
  it("are built from the request's own values and describe themselves without redacted values", () => {
    const { view, hidden } = seen({ to: "ana@example.com", amount: 5, tags: ["a"], nested: { k: true } });
    const built = buildPins(
      view,
      hidden,
      [
        { path: "/to", op: "eq" },
        { path: "/amount", op: "lte", value: 10 },
        { path: "/nested/k", op: "eq" },
      ],
      storable,
    );
    expect(built.ok).toBe(true);
    const pins = (built as { pins: Pin[] }).pins;
    expect(pins.map(pinWords)).toEqual(["/to is the same redacted value", "/amount ≤ 10", "/nested/k = true"]);
    expect(JSON.stringify(pins)).not.toContain("ana@");
    expect(pinsMatch(pins, view, hidden)).toBe(true);
    const other = seen({ to: "bob@example.com", amount: 5, tags: ["a"], nested: { k: true } });
    expect(pinsMatch(pins, other.view, other.hidden)).toBe(false);
  });

  it("refuses containers, missing values, bounds the request misses, lists without its value and secrets in lists", () => {
    const { view, hidden } = seen({ amount: 5, tags: ["a"], word: "x" });
    const fail = (reqs: Parameters<typeof buildPins>[2], store = storable) => expect(buildPins(view, hidden, reqs, store).ok).toBe(false);
    fail([{ path: "/tags", op: "eq" }]);
    fail([{ path: "/nope", op: "eq" }]);
    fail([{ path: "/amount", op: "gte", value: 6 }]);
    fail([{ path: "/word", op: "lte", value: 6 }]);
    fail([{ path: "/word", op: "in", values: ["y"] }]);
    fail([{ path: "/word", op: "in", values: ["x", "sk_live_abc"] }], (v) => v !== "sk_live_abc");
    fail([]);
  });

  it("never goes through a redacted key, and a shown pin never matches a hidden value", () => {
    const source = seen({ "ana@example.com": 5 });
    expect(buildPins(source.view, source.hidden, [{ path: "/[redacted:email]", op: "eq" }], storable).ok).toBe(false);
    // A pin on a shown value that later arrives hidden (the same text under a secret-named key) does not match.
    const pins: Pin[] = [{ path: "/password", op: "eq", value: "[redacted:secret_key]" }];
    const hiddenNow = seen({ password: "[redacted:secret_key]" });
    expect(hiddenNow.view).toEqual({ password: "[redacted:secret_key]" });
    expect(hiddenNow.hidden).toHaveLength(1);
    expect(pinsMatch(pins, hiddenNow.view, hiddenNow.hidden)).toBe(false);
    const keyRenamed = seen({ "bob@example.com": 5 });
    expect(pinsMatch([{ path: "/[redacted:email]", op: "eq", value: 5 }], keyRenamed.view, keyRenamed.hidden)).toBe(false);
    expect(pinsMatch([], keyRenamed.view, keyRenamed.hidden)).toBe(false);
  });
});
