// What redaction hid, as keyed digests at the pointers where the redacted
// copy shows it, and the sealed views compared for revisions.
import { describe, expect, it } from "vitest";
import { compileRedactor } from "../redaction";
import { redactArguments } from "./hidden-values";
import { expectedSealedView, sameSealedView, sealView, sealedDifferences } from "./sealed-view";
import { checkPatch } from "./patch";

const redactor = compileRedactor();
const sealed = (args: unknown, service = "svc_1") => {
  const { view, hidden } = redactArguments(redactor, service, args);
  return { view, hidden, sealed: sealView(view, hidden) };
};

describe("hidden values", () => {
  it("reports each hidden value and key at its pointer in the redacted copy", () => {
    const args = {
      to: "write to ana@example.com today",
      password: { nested: "x" },
      card: 4111111111111111,
      "bo@example.com": "plain",
      "[redacted:email]": "literal",
      list: ["ok", "ghp_" + "a".repeat(36)],
      amount: 5,
    };
    const { view, hidden } = redactArguments(redactor, "svc_1", args);
    expect(view).toMatchObject({
      to: "write to [redacted:email] today",
      password: "[redacted:secret_key]",
      card: "[redacted:card_number]",
      amount: 5,
    });
    const where = hidden.map(([p, k]) => `${k} ${p}`).sort();
    expect(where).toEqual(
      [
        "v /to",
        "v /password",
        "v /card",
        "k /[redacted:email]",
        // The literal key that collided with the redacted one is renamed: not shown as it is, so hidden.
        "k /[redacted:email]#2",
        "v /list/1",
      ].sort(),
    );
    for (const [, , digest] of hidden) expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("spells pointers per RFC 6901, at any depth", () => {
    const { hidden } = redactArguments(redactor, "svc_1", { "a/b~c": [{ deep: { to: "ana@example.com" } }], plain: "x" });
    expect(hidden.map(([p]) => p)).toEqual(["/a~1b~0c/0/deep/to"]);
  });

  it("digests alike only within one service", () => {
    const a = sealed({ k: "key ana@example.com" }, "svc_1");
    expect(sameSealedView(a.sealed, sealed({ k: "key ana@example.com" }, "svc_1").sealed)).toBe(true);
    expect(sameSealedView(a.sealed, sealed({ k: "key bob@example.com" }, "svc_1").sealed)).toBe(false);
    expect(sameSealedView(a.sealed, sealed({ k: "key ana@example.com" }, "svc_2").sealed)).toBe(false);
  });

  it("cannot confuse a shown value with a hidden one", () => {
    const hidden = sealed({ k: "mail ana@example.com" });
    const lookalike = sealed({ k: { "#": (hidden.sealed as { "v:k": { "#": string } })["v:k"]["#"] } });
    expect(sameSealedView(hidden.sealed, lookalike.sealed)).toBe(false);
  });
});

describe("proposals and revisions", () => {
  const original = { account: "AC-1", amount: 500, api_key: "sk_live_" + "b".repeat(24), items: [{ note: "ana@example.com" }, { qty: 1 }] };

  it("matches the original with the patch applied, and names where a revision differs", () => {
    const o = redactArguments(redactor, "svc_1", original);
    const patch = [
      { op: "replace" as const, path: "/amount", value: 50 },
      { op: "add" as const, path: "/items/0/gift", value: true },
    ];
    const expected = expectedSealedView(o.view, o.hidden, patch);
    const good = { ...original, amount: 50, items: [{ note: "ana@example.com", gift: true }, { qty: 1 }] };
    expect(sameSealedView(expected, sealed(good).sealed)).toBe(true);
    const bad = { ...original, amount: 50, api_key: "sk_live_" + "c".repeat(24), items: [{ note: "eve@example.com", gift: true }, { qty: 2 }] };
    expect(sealedDifferences(expected, sealed(bad).sealed).sort()).toEqual(["/api_key", "/items/0/note", "/items/1/qty"]);
  });

  it("keeps hidden values in place when an array shifts around them", () => {
    const o = redactArguments(redactor, "svc_1", original);
    const patch = [{ op: "add" as const, path: "/items/0", value: { qty: 9 } }];
    const shifted = { ...original, items: [{ qty: 9 }, ...original.items] };
    expect(sameSealedView(expectedSealedView(o.view, o.hidden, patch), sealed(shifted).sealed)).toBe(true);
  });

  it("refuses patches on or around hidden values and patches carrying secrets", () => {
    const o = redactArguments(redactor, "svc_1", original);
    const check = (patch: Parameters<typeof checkPatch>[2]) => checkPatch(o.view, o.hidden, patch, redactor);
    expect(check([{ op: "replace", path: "/amount", value: 1 }])).toMatchObject({ ok: true, result: { ...(o.view as object), amount: 1 } });
    expect(check([{ op: "replace", path: "/api_key", value: "x" }])).toMatchObject({ ok: false });
    expect(check([{ op: "remove", path: "/items/0" }])).toMatchObject({ ok: false });
    expect(check([{ op: "add", path: "/items/0/note/x", value: 1 }])).toMatchObject({ ok: false });
    expect(check([{ op: "replace", path: "/items", value: [] }])).toMatchObject({ ok: false });
    expect(check([{ op: "remove", path: "/items/1" }])).toMatchObject({ ok: true });
    expect(check([{ op: "add", path: "/token", value: "abc" }])).toMatchObject({ ok: false });
    const plain = redactArguments(redactor, "svc_1", { amount: 1 });
    expect(checkPatch(plain.view, plain.hidden, [{ op: "replace", path: "", value: [1] }], redactor)).toMatchObject({
      ok: false,
      message: "the arguments must stay a JSON object",
    });
    expect(checkPatch(plain.view, plain.hidden, [{ op: "replace", path: "", value: { amount: 2 } }], redactor)).toMatchObject({ ok: true });
    expect(check([{ op: "add", path: "/to", value: { deep: ["carol@example.com"] } }])).toMatchObject({ ok: false });
  });
});
