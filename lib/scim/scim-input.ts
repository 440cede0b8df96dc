// What the SCIM library makes of a request body, with its complaints as SCIM
// errors: a TypeError from its schema checks is the client's invalid value,
// never a crash.
import { isScimError, scimError } from "./scim-error";

export function scimInput<T>(read: () => T): T;
export function scimInput<T>(read: () => Promise<T>): Promise<T>;
export function scimInput<T>(read: () => T | Promise<T>): T | Promise<T> {
  const refuse = (e: unknown): never => {
    if (isScimError(e)) throw e;
    if (e instanceof TypeError) throw scimError(400, "invalidValue", e.message.slice(0, 300));
    throw e;
  };
  try {
    const result = read();
    return result instanceof Promise ? result.catch(refuse) : result;
  } catch (e) {
    return refuse(e);
  }
}

const BOOLEAN_TEXT = /^(true|false)$/i;
const asBoolean = (v: unknown) => (typeof v === "string" && BOOLEAN_TEXT.test(v) ? v.toLowerCase() === "true" : v);

/**
 * A PatchOp body with Entra ID's habits made standard: operation names in any
 * case ("Replace") and `active` as the text "True"/"False".
 */
export function normalizePatch(body: unknown): unknown {
  if (!body || typeof body !== "object" || !Array.isArray((body as { Operations?: unknown }).Operations)) return body;
  const ops = (body as { Operations: unknown[] }).Operations.map((op) => {
    if (!op || typeof op !== "object") return op;
    const o = { ...(op as Record<string, unknown>) };
    if (typeof o.op === "string") o.op = o.op.toLowerCase();
    if (typeof o.path === "string" && o.path.toLowerCase() === "active") o.value = asBoolean(o.value);
    if (o.path === undefined && o.value && typeof o.value === "object" && !Array.isArray(o.value)) {
      const v = { ...(o.value as Record<string, unknown>) };
      for (const key of Object.keys(v)) if (key.toLowerCase() === "active") v[key] = asBoolean(v[key]);
      o.value = v;
    }
    return o;
  });
  return { ...(body as object), Operations: ops };
}
