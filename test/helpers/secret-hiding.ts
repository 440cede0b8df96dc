// Ways a secret reaches the redactor hidden: encoded whole (base64,
// base64url, hex, percent, \u and HTML escapes), cut into pieces, or nested
// deep in arrays and objects. Used with the generators of secret-samples.ts.
import fc from "fast-check";

export type Encoding = "base64" | "base64url" | "hex" | "percent" | "unicode-escape" | "html";
export const encoding: fc.Arbitrary<Encoding> = fc.constantFrom("base64", "base64url", "hex", "percent", "unicode-escape", "html");

/** Encodes a whole text (percent and escapes: every character, so nothing readable is left). */
export function encode(text: string, how: Encoding): string {
  switch (how) {
    case "base64":
      return Buffer.from(text).toString("base64");
    case "base64url":
      return Buffer.from(text).toString("base64url");
    case "hex":
      return Buffer.from(text).toString("hex");
    case "percent":
      return [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
    case "unicode-escape":
      return text
        .split("")
        .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join("");
    case "html":
      return [...text].map((c) => `&#${c.codePointAt(0)};`).join("");
  }
}

/** Cuts `text` at 1-3 points inside `secret` (which it contains). */
export function splitAt(text: string, secret: string, cuts: number[]): string[] {
  const start = text.indexOf(secret);
  const points = [...new Set(cuts.map((c) => start + 1 + (c % Math.max(1, secret.length - 1))))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let last = 0;
  for (const p of points) {
    pieces.push(text.slice(last, p));
    last = p;
  }
  pieces.push(text.slice(last));
  return pieces.filter((p) => p.length > 0);
}

/** `value` wrapped in arrays and objects along `path`, outermost first, each with a plain sibling. */
export const nest = (value: unknown, path: Array<"array" | "object">) =>
  path.reduceRight<unknown>((inner, kind, k) => (kind === "array" ? ["x", inner] : { [`level${k}`]: inner, other: "plain" }), value);
