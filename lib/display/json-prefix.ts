// The start of a JSON text as a tree, for pages that list many requests
// (docs/security.md, bounded rendering): the run page reads only the first
// few thousand characters of each request's stored arguments, never the
// whole text, and shows what they hold. Every value it returns is exactly
// what the whole text says there, or is marked as cut: a string that goes
// on past the end is its start with `cut`; a container that does not close
// within the text has `cut` (more entries may follow); a number, literal or
// key that the end splits is left out (its container is cut). Entries keep
// the order of the text (object entries are pairs, so `__proto__` is a key
// like any other). Iterative: nesting depth is not limited by the stack.

export type PrefixNode =
  | { t: "string"; v: string; cut: boolean }
  | { t: "number"; v: number }
  | { t: "boolean"; v: boolean }
  | { t: "null" }
  | { t: "array"; items: PrefixNode[]; cut: boolean }
  | { t: "object"; entries: Array<[string, PrefixNode]>; cut: boolean };

type Container = Extract<PrefixNode, { t: "array" | "object" }>;

/** Most nodes read from one text; past them every open container is cut. */
export const PREFIX_MAX_NODES = 2_000;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NUMBER_CHARS = /[-+.eE\d]+/y;

function skipWs(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Index of the closing quote of the string literal opening at s[i], or -1 when the text ends first. */
function closingQuote(s: string, i: number): number {
  for (let j = s.indexOf('"', i + 1); j !== -1; j = s.indexOf('"', j + 1)) {
    let backslashes = 0;
    for (let k = j - 1; k > i && s.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
  }
  return -1;
}

/** The body of a string literal the text cuts off, up to its last complete character or escape. */
function completeBody(body: string): string {
  let end = 0;
  for (let k = 0; k < body.length;) {
    if (body.charCodeAt(k) !== 0x5c) {
      end = ++k;
      continue;
    }
    const width = body[k + 1] === "u" ? 6 : 2;
    if (k + width > body.length) break;
    end = k += width;
  }
  return body.slice(0, end);
}

/** The string literal opening at s[i]: its value, whether the text cut it, and the index after it. */
function readString(s: string, i: number): { v: string; cut: boolean; next: number } {
  const close = closingQuote(s, i);
  if (close !== -1) {
    const body = s.slice(i + 1, close);
    return { v: body.includes("\\") ? (JSON.parse(s.slice(i, close + 1)) as string) : body, cut: false, next: close + 1 };
  }
  let v = JSON.parse(`"${completeBody(s.slice(i + 1))}"`) as string;
  // Never half a surrogate pair (an escaped pair split between its two halves).
  if (/[\uD800-\uDBFF]$/.test(v)) v = v.slice(0, -1);
  return { v, cut: true, next: s.length };
}

/**
 * The tree `text` holds, as far as it goes. `complete`: the text is the whole
 * document (a number at its very end is then whole). null when the text
 * holds no value at all (empty, or cut before the first one ends and starts).
 * Throws on text that is not the start of a JSON document.
 */
export function parseJsonPrefix(text: string, complete: boolean, maxNodes = PREFIX_MAX_NODES): PrefixNode | null {
  let root: PrefixNode | null = null;
  const stack: Array<{ node: Container; key: string | null }> = [];
  let nodes = 0;
  let i = 0;
  let state: "value" | "first-value" | "key" | "first-key" | "colon" | "after" = "value";

  /** The text ends (or the node budget does) here: every open container may have more. */
  const stop = () => {
    for (const f of stack) f.node.cut = true;
    return root;
  };
  const attach = (node: PrefixNode) => {
    nodes++;
    const top = stack[stack.length - 1];
    if (!top) root = node;
    else if (top.node.t === "array") top.node.items.push(node);
    else {
      top.node.entries.push([top.key!, node]);
      top.key = null;
    }
  };
  const fail = (): never => {
    throw new SyntaxError(`not the start of a JSON document (at ${i})`);
  };

  for (;;) {
    i = skipWs(text, i);
    if (i >= text.length) {
      if (state === "after" && stack.length === 0) return root;
      return stop();
    }
    const c = text[i]!;
    switch (state) {
      case "first-value":
      case "first-key":
        if (c === (state === "first-value" ? "]" : "}")) {
          stack.pop();
          i++;
          state = "after";
        } else state = state === "first-value" ? "value" : "key";
        continue;
      case "key": {
        if (c !== '"') fail();
        const key = readString(text, i);
        if (key.cut) return stop();
        stack[stack.length - 1]!.key = key.v;
        i = key.next;
        state = "colon";
        continue;
      }
      case "colon":
        if (c !== ":") fail();
        i++;
        state = "value";
        continue;
      case "after": {
        const top = stack[stack.length - 1];
        if (!top) fail();
        if (c === ",") state = top!.node.t === "array" ? "value" : "key";
        else if (c === (top!.node.t === "array" ? "]" : "}")) {
          stack.pop();
          state = "after";
        } else fail();
        i++;
        continue;
      }
      case "value":
        break;
    }
    // A value starts at i.
    if (nodes >= maxNodes) return stop();
    if (c === "{" || c === "[") {
      const node: Container = c === "{" ? { t: "object", entries: [], cut: false } : { t: "array", items: [], cut: false };
      attach(node);
      stack.push({ node, key: null });
      i++;
      state = c === "{" ? "first-key" : "first-value";
      continue;
    }
    if (c === '"') {
      const s = readString(text, i);
      attach({ t: "string", v: s.v, cut: s.cut });
      if (s.cut) return stop();
      i = s.next;
      state = "after";
      continue;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER_CHARS.lastIndex = i;
      const run = NUMBER_CHARS.exec(text)![0];
      // The text may end inside the number: what it says is not known.
      if (i + run.length >= text.length && !complete) return stop();
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m || m[0].length !== run.length) fail();
      attach({ t: "number", v: Number(run) });
      i += run.length;
      state = "after";
      continue;
    }
    const literal = (["true", "false", "null"] as const).find((w) => w[0] === c);
    if (!literal) fail();
    if (!text.startsWith(literal!, i)) {
      if (!complete && literal!.startsWith(text.slice(i))) return stop();
      fail();
    }
    attach(literal === "null" ? { t: "null" } : { t: "boolean", v: literal === "true" });
    i += literal!.length;
    state = "after";
  }
}
