/**
 * The part of JSON Patch (RFC 6902) that Countersign's revisions use: `add`,
 * `remove` and `replace`, with paths as JSON Pointers (RFC 6901).
 *
 * Written here rather than taken from a JSON Patch library because arguments
 * follow I-JSON's rule that `__proto__` is an ordinary key: the libraries
 * either refuse it or assign through it (which sets an object's prototype).
 * This one reads and writes own properties only, and never changes its input:
 * the containers on each operation's path are copied, the rest is shared.
 */

export type JsonPatchOperation =
  { op: "add"; path: string; value: unknown } | { op: "replace"; path: string; value: unknown } | { op: "remove"; path: string };

export type JsonPatch = JsonPatchOperation[];

export class JsonPatchError extends Error {
  override name = "JsonPatchError";
  constructor(
    message: string,
    /** The position of the operation in the patch. */
    readonly operation: number,
  ) {
    super(message);
  }
}

/** Hooks that let a caller apply a patch to an encoded copy of a document (the server's view of redacted arguments). */
export interface JsonPatchHooks {
  /** The property of an object node that a path segment names. */
  key?(segment: string): string;
  /** What is stored for an operation's value. */
  value?(value: unknown): unknown;
  /** Called with each node a path goes through and each node replaced or removed; throws to refuse the operation. */
  check?(node: unknown, role: "through" | "target"): void;
}

type Container = Record<string, unknown> | unknown[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isContainer = (v: unknown): v is Container => typeof v === "object" && v !== null;
const own = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** Sets an own property, `__proto__` included. */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function shallowCopy(node: Container): Container {
  if (Array.isArray(node)) return node.slice();
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(node)) setOwn(copy, key, node[key]);
  return copy;
}

/** RFC 6901: "" is the whole document; "/a~1b/c~0" is ["a/b", "c~"]. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error("a JSON Pointer is empty or starts with /");
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => {
      if (/~[^01]|~$/.test(segment)) throw new Error("~ in a JSON Pointer must be written ~0 or ~1");
      return segment.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** The JSON Pointer of a path of keys and indices. */
export function formatJsonPointer(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/** The value a JSON Pointer names in `doc` (own properties only), or `found: false`. */
export function getJsonPointer(doc: unknown, pointer: string): { found: true; value: unknown } | { found: false } {
  let node = doc;
  for (const segment of parseJsonPointer(pointer)) {
    if (Array.isArray(node) && INDEX.test(segment) && Number(segment) < node.length) node = node[Number(segment)];
    else if (isObject(node) && own(node, segment)) node = node[segment];
    else return { found: false };
  }
  return { found: true, value: node };
}

function arrayIndex(segment: string, length: number, op: JsonPatchOperation["op"]): number {
  if (op === "add" && segment === "-") return length;
  if (!INDEX.test(segment)) throw new Error(`"${segment}" is not an array index`);
  const index = Number(segment);
  if (index > length || (op !== "add" && index === length)) throw new Error(`index ${index} is past the end of the array`);
  return index;
}

function applyOne(doc: unknown, operation: JsonPatchOperation, hooks: JsonPatchHooks): unknown {
  const segments = parseJsonPointer(operation.path);
  const value = operation.op === "remove" ? undefined : hooks.value ? hooks.value(operation.value) : operation.value;
  if (segments.length === 0) {
    if (operation.op === "remove") throw new Error("the whole document cannot be removed");
    hooks.check?.(doc, "target");
    return value;
  }
  if (!isContainer(doc)) throw new Error("the path goes through a value that is not an object or array");
  hooks.check?.(doc, "through");
  const root = shallowCopy(doc);
  let parent: Container = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    let child: unknown;
    let set: (copy: Container) => void;
    if (Array.isArray(parent)) {
      const index = arrayIndex(segment, parent.length, "replace");
      const array = parent;
      child = array[index];
      set = (copy) => (array[index] = copy);
    } else {
      const key = hooks.key ? hooks.key(segment) : segment;
      if (!own(parent, key)) throw new Error(`no member "${segment}"`);
      const object = parent;
      child = object[key];
      set = (copy) => setOwn(object, key, copy);
    }
    if (!isContainer(child)) throw new Error("the path goes through a value that is not an object or array");
    hooks.check?.(child, "through");
    const copy = shallowCopy(child);
    set(copy);
    parent = copy;
  }
  const last = segments[segments.length - 1]!;
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, operation.op);
    if (operation.op !== "add") hooks.check?.(parent[index], "target");
    if (operation.op === "add") parent.splice(index, 0, value);
    else if (operation.op === "replace") parent[index] = value;
    else parent.splice(index, 1);
  } else if (isObject(parent)) {
    const key = hooks.key ? hooks.key(last) : last;
    const exists = own(parent, key);
    if (operation.op !== "add" && !exists) throw new Error(`no member "${last}"`);
    if (exists) hooks.check?.(parent[key], "target");
    if (operation.op === "remove") delete parent[key];
    else setOwn(parent, key, value);
  }
  return root;
}

/**
 * Applies `patch` to `doc` and returns the result; `doc` is not changed.
 * Throws JsonPatchError naming the operation that cannot be applied.
 */
export function applyJsonPatch(doc: unknown, patch: readonly JsonPatchOperation[], hooks: JsonPatchHooks = {}): unknown {
  let current = doc;
  patch.forEach((operation, i) => {
    if (!["add", "remove", "replace"].includes(operation?.op)) throw new JsonPatchError(`operation ${i}: only add, remove and replace are used`, i);
    try {
      current = applyOne(current, operation, hooks);
    } catch (e) {
      throw new JsonPatchError(`operation ${i} (${operation.op} ${operation.path}): ${(e as Error).message}`, i);
    }
  });
  return current;
}

export const isJsonPatchError = (e: unknown): e is JsonPatchError => e instanceof JsonPatchError;
