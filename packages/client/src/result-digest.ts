/**
 * The digest of a tool call's result, for the execution report (docs/executions.md):
 *
 *   result_digest = "sha256:" + lowercase_hex(SHA-256(UTF-8(salt + "." + JCS(value))))
 *
 * salted with the call's args_salt, which Countersign never shows anyone, so
 * the digest, which reviewers and admins see, cannot confirm a guessed result.
 * Countersign never sees the result itself.
 */
import { canonicalJson, isArgsSalt, sha256Digest, type ArgsDigest } from "./args-digest.js";

/**
 * `"sha256:"` and the hex SHA-256 of `salt + "." + JCS(value)`, where `value`
 * is first made JSON: as `JSON.stringify` sees it (`toJSON` honoured, boxed
 * primitives unboxed, `undefined`, function and symbol members dropped from
 * objects and null in arrays), with `undefined` itself → `null`, and every
 * value JSON has no form for replaced by its string form (`String(value)`):
 * NaN, ±Infinity, a BigInt, a function or symbol as the whole value, a
 * circular reference. Lone UTF-16 surrogates become U+FFFD. It never throws
 * for a value, so a result can always be reported.
 *
 * The execution report of a call that threw uses `{"error": <the error's class name>}` as the value.
 *
 * @throws RangeError when `salt` is not a well-formed args_salt (16–64 bytes as unpadded base64url).
 */
export function resultDigest(value: unknown, salt: string): ArgsDigest {
  if (!isArgsSalt(salt)) throw new RangeError("the salt must be 16-64 bytes as unpadded base64url (the call's args_salt)");
  let json = value === undefined ? null : jsonValue(value, "", new Set());
  // A function or a symbol as the whole value (or a toJSON answering undefined): its string form.
  if (json === undefined) json = stringForm(value);
  return sha256Digest(`${salt}.${canonicalJson(json)}`);
}

/** The class name of what a tool threw: its constructor's name ("TypeError", "PaymentDeclined"), else its type. */
export function errorClassName(error: unknown): string {
  if (error === null) return "null";
  if (typeof error === "object" || typeof error === "function") {
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && name !== "") return name;
  }
  return typeof error;
}

/** The JSON data `value` stands for, or undefined where JSON.stringify would leave it out. */
function jsonValue(value: unknown, key: string, ancestors: Set<object>): unknown {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    try {
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    } catch {
      return stringForm(value);
    }
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  switch (typeof value) {
    case "string":
      return wellFormed(value);
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return stringForm(object);
  ancestors.add(object);
  try {
    if (Array.isArray(object)) return object.map((item, index) => jsonValue(item, String(index), ancestors) ?? null);
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(object)) {
      const inner = jsonValue(member, name, ancestors);
      // defineProperty: a "__proto__" key stays an ordinary member.
      if (inner !== undefined) Object.defineProperty(out, wellFormed(name), { value: inner, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    ancestors.delete(object);
  }
}

function stringForm(value: unknown): string {
  try {
    return wellFormed(String(value));
  } catch {
    // An object without a usable toString (Object.create(null)).
    return Object.prototype.toString.call(value);
  }
}

/** `text` with lone surrogates replaced by U+FFFD (String.prototype.toWellFormed). */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}
