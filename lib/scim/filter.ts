// SCIM filters (RFC 7644 §3.4.2.2). The SCIM library parses the expression
// into "any of these branches, each all of these comparisons"; evaluating it
// against our resources is ours, because it must know which attributes exist
// and which compare without regard to case (userName, emails and
// displayName do; ids and externalId do not), which the library's matcher
// does not. An attribute we do not have is an invalidFilter error, not an
// empty result, so a typo in an identity provider's set-up shows at once.
import SCIMMY from "scimmy";
import { scimError } from "./scim-error";

/** Attributes a filter may name, per resource, with whether they compare case-insensitively. */
export type FilterAttributes = Record<string, { caseInsensitive: boolean; sub?: FilterAttributes }>;

export const USER_FILTER_ATTRIBUTES: FilterAttributes = {
  id: { caseInsensitive: false },
  userName: { caseInsensitive: true },
  externalId: { caseInsensitive: false },
  displayName: { caseInsensitive: true },
  active: { caseInsensitive: false },
  emails: { caseInsensitive: true, sub: { value: { caseInsensitive: true }, type: { caseInsensitive: true }, primary: { caseInsensitive: false } } },
  name: {
    caseInsensitive: true,
    sub: { formatted: { caseInsensitive: true }, givenName: { caseInsensitive: true }, familyName: { caseInsensitive: true } },
  },
};

export const GROUP_FILTER_ATTRIBUTES: FilterAttributes = {
  id: { caseInsensitive: false },
  externalId: { caseInsensitive: false },
  displayName: { caseInsensitive: true },
  members: { caseInsensitive: false, sub: { value: { caseInsensitive: false }, display: { caseInsensitive: true } } },
};

const OPERATORS = new Set(["eq", "ne", "co", "sw", "ew", "pr", "gt", "ge", "lt", "le"]);

type Comparison = { op: string; negate: boolean; expected: unknown };
type Branch = Map<string, { attr: string; comparisons: Comparison[]; sub: Branch | null }>;

/** A parsed filter: evaluate with `matches`. */
export type ScimFilter = { branches: Branch[]; source: string };

const invalid = (detail: string) => scimError(400, "invalidFilter", detail);

function findAttribute(attributes: FilterAttributes, name: string): [string, FilterAttributes[string]] {
  const hit = Object.entries(attributes).find(([key]) => key.toLowerCase() === name.toLowerCase());
  if (!hit) throw invalid(`the attribute '${name.slice(0, 100)}' cannot be filtered on here`);
  return hit;
}

function comparisonsOf(expression: unknown[], attr: string): Comparison[] {
  const list = expression.every(Array.isArray) ? (expression as unknown[][]) : [expression];
  return list.map((e) => {
    const negate = String(e[0]).toLowerCase() === "not";
    const [op, expected] = (negate ? e.slice(1) : e) as [unknown, unknown];
    const name = String(op).toLowerCase();
    if (!OPERATORS.has(name)) throw invalid(`unknown operator for '${attr}'`);
    if (name !== "pr" && expected === undefined) throw invalid(`the operator '${name}' on '${attr}' needs a value`);
    return { op: name, negate, expected };
  });
}

function branchOf(raw: Record<string, unknown>, attributes: FilterAttributes): Branch {
  const branch: Branch = new Map();
  for (const [name, expression] of Object.entries(raw)) {
    const [attr, spec] = findAttribute(attributes, name);
    if (Array.isArray(expression)) {
      if (spec.sub) throw invalid(`'${attr}' is complex: name one of its parts, such as ${attr}.${Object.keys(spec.sub)[0]}`);
      branch.set(attr, { attr, comparisons: comparisonsOf(expression, attr), sub: null });
    } else if (expression && typeof expression === "object") {
      if (!spec.sub) throw invalid(`'${attr}' has no parts to filter on`);
      branch.set(attr, { attr, comparisons: [], sub: branchOf(expression as Record<string, unknown>, spec.sub) });
    } else {
      throw invalid(`the filter on '${attr}' is not valid`);
    }
  }
  return branch;
}

/** Parses a filter for a resource's attributes; a bad expression is a SCIM invalidFilter error. */
export function parseScimFilter(expression: string, attributes: FilterAttributes): ScimFilter {
  if (expression.length > 4096) throw invalid("the filter is too long");
  let parsed: unknown[];
  try {
    parsed = [...new SCIMMY.Types.Filter(expression)];
  } catch {
    throw invalid("the filter is not a valid SCIM filter expression");
  }
  return { branches: parsed.map((raw) => branchOf(raw as Record<string, unknown>, attributes)), source: expression };
}

function compare(actual: unknown, c: Comparison, caseInsensitive: boolean): boolean {
  const fold = (v: unknown) => (caseInsensitive && typeof v === "string" ? v.toLowerCase() : v);
  let expected = fold(c.expected);
  const value = fold(actual);
  // Entra ID sends booleans as the strings "True"/"False".
  if (typeof value === "boolean" && typeof expected === "string" && /^(true|false)$/i.test(expected)) expected = expected.toLowerCase() === "true";
  let result: boolean;
  switch (c.op) {
    case "pr":
      result = value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
      break;
    case "eq":
      result = value === expected;
      break;
    case "ne":
      result = value !== expected;
      break;
    case "co":
      result = typeof value === "string" && typeof expected === "string" && value.includes(expected);
      break;
    case "sw":
      result = typeof value === "string" && typeof expected === "string" && value.startsWith(expected);
      break;
    case "ew":
      result = typeof value === "string" && typeof expected === "string" && value.endsWith(expected);
      break;
    default: {
      const ordered = typeof value === typeof expected && (typeof value === "string" || typeof value === "number");
      const a = value as string | number;
      const b = expected as string | number;
      result = ordered && (c.op === "gt" ? a > b : c.op === "ge" ? a >= b : c.op === "lt" ? a < b : a <= b);
    }
  }
  return c.negate ? !result : result;
}

function branchMatches(branch: Branch, resource: Record<string, unknown>, attributes: FilterAttributes): boolean {
  for (const { attr, comparisons, sub } of branch.values()) {
    const spec = attributes[attr]!;
    const actual = resource[attr];
    if (sub) {
      const items = Array.isArray(actual) ? actual : actual && typeof actual === "object" ? [actual] : [];
      if (!items.some((item) => branchMatches(sub, item as Record<string, unknown>, spec.sub!))) return false;
    } else if (!comparisons.every((c) => compare(actual, c, spec.caseInsensitive))) {
      return false;
    }
  }
  return true;
}

/** Whether a resource (its SCIM representation) matches the filter. */
export function matchesScimFilter(filter: ScimFilter, resource: Record<string, unknown>, attributes: FilterAttributes): boolean {
  return filter.branches.some((branch) => branchMatches(branch, resource, attributes));
}

/**
 * The exact values a filter can only match, for a database lookup before
 * the filter itself runs: when every branch requires `attr eq "value"` for
 * one of `attrs`, the values per attribute; otherwise null (read them all).
 */
export function exactLookups(filter: ScimFilter, attrs: readonly string[]): Record<string, string[]> | null {
  const out: Record<string, string[]> = {};
  for (const branch of filter.branches) {
    let found = false;
    for (const attr of attrs) {
      const [top, part] = attr.split(".") as [string, string | undefined];
      const entry = branch.get(top);
      const comparisons = part ? entry?.sub?.get(part)?.comparisons : entry?.comparisons;
      const eq = comparisons?.find((c) => c.op === "eq" && !c.negate && typeof c.expected === "string");
      if (eq) {
        (out[attr] ??= []).push(eq.expected as string);
        found = true;
        break;
      }
    }
    if (!found) return null;
  }
  return out;
}
