// The JSON Patch subset revisions use (RFC 6902 add / remove / replace over
// RFC 6901 pointers), checked against the RFC's own examples, own-property
// semantics for __proto__, and a property: the input is never changed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyJsonPatch, formatJsonPointer, JsonPatchError, parseJsonPointer, type JsonPatch } from "../src/json-patch.js";

describe("JSON Pointer (RFC 6901)", () => {
  it("parses and formats the RFC's examples, escapes included", () => {
    expect(parseJsonPointer("")).toEqual([]);
    expect(parseJsonPointer("/foo/0")).toEqual(["foo", "0"]);
    expect(parseJsonPointer("/a~1b")).toEqual(["a/b"]);
    expect(parseJsonPointer("/m~0n")).toEqual(["m~n"]);
    expect(parseJsonPointer("/")).toEqual([""]);
    expect(parseJsonPointer("/~01")).toEqual(["~1"]);
    expect(formatJsonPointer(["a/b", "m~n", 3])).toBe("/a~1b/m~0n/3");
    for (const bad of ["foo", "/a~2", "/a~"]) expect(() => parseJsonPointer(bad)).toThrow();
  });

  it("round-trips any list of keys (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (keys) => {
        expect(parseJsonPointer(formatJsonPointer(keys))).toEqual(keys);
      }),
    );
  });
});

describe("applyJsonPatch", () => {
  it("adds, replaces and removes in objects and arrays as RFC 6902's examples do", () => {
    expect(applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }])).toEqual({ foo: "bar", baz: "qux" });
    expect(applyJsonPatch({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }])).toEqual({ foo: ["bar", "qux", "baz"] });
    expect(applyJsonPatch({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: "end" }])).toEqual({ foo: ["bar", "end"] });
    expect(applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }])).toEqual({ foo: "bar" });
    expect(applyJsonPatch({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }])).toEqual({ foo: ["bar", "baz"] });
    expect(applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }])).toEqual({ baz: "boo", foo: "bar" });
    expect(applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/child", value: { grandchild: {} } }])).toEqual({
      foo: "bar",
      child: { grandchild: {} },
    });
    expect(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: [1] }])).toEqual([1]);
    // Operations apply in order, each to the result of the one before.
    expect(
      applyJsonPatch({ a: [] }, [
        { op: "add", path: "/a/-", value: { b: 1 } },
        { op: "replace", path: "/a/0/b", value: 2 },
      ]),
    ).toEqual({ a: [{ b: 2 }] });
  });

  it("refuses what cannot be applied, naming the operation", () => {
    const refused = (doc: unknown, patch: JsonPatch, index = 0) => {
      try {
        applyJsonPatch(doc, patch);
      } catch (e) {
        expect(e).toBeInstanceOf(JsonPatchError);
        expect((e as JsonPatchError).operation).toBe(index);
        return;
      }
      throw new Error("applied");
    };
    refused({ a: 1 }, [{ op: "replace", path: "/b", value: 1 }]);
    refused({ a: 1 }, [{ op: "remove", path: "/b" }]);
    refused({ a: [1] }, [{ op: "replace", path: "/a/1", value: 1 }]);
    refused({ a: [1] }, [{ op: "add", path: "/a/2", value: 1 }]);
    refused({ a: [1] }, [{ op: "add", path: "/a/01", value: 1 }]);
    refused({ a: [1] }, [{ op: "remove", path: "/a/-" }]);
    refused({ a: 1 }, [{ op: "add", path: "/a/b", value: 1 }]);
    refused({ a: 1 }, [{ op: "remove", path: "" }]);
    refused({ a: 1 }, [{ op: "replace", path: "/a", value: 2 }, { op: "move", path: "/a", from: "/b" } as never], 1);
    refused(
      { a: 1 },
      [
        { op: "add", path: "/x", value: 1 },
        { op: "remove", path: "/y" },
      ],
      1,
    );
  });

  it("treats __proto__ as an ordinary key and never touches a prototype", () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
    const out = applyJsonPatch(doc, [{ op: "replace", path: "/__proto__/x", value: 2 }]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":2},"a":1}');
    const added = applyJsonPatch({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<string, unknown>;
    expect(JSON.stringify(added)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const removed = applyJsonPatch(doc, [{ op: "remove", path: "/__proto__" }]);
    expect(JSON.stringify(removed)).toBe('{"a":1}');
  });

  it("never changes its input (property)", () => {
    const doc = fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1 });
    fc.assert(
      fc.property(doc, fc.jsonValue({ maxDepth: 2 }), (d, value) => {
        const before = JSON.stringify(d);
        const key = Object.keys(d)[0]!;
        const path = formatJsonPointer([key]);
        applyJsonPatch(d, [{ op: "replace", path, value }]);
        applyJsonPatch(d, [{ op: "remove", path }]);
        applyJsonPatch(d, [{ op: "add", path: "/new", value }]);
        expect(JSON.stringify(d)).toBe(before);
      }),
    );
  });
});
