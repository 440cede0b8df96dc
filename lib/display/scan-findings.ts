// The warning at the top of a request's page (docs/security.md): every hidden,
// direction-changing or look-alike character anywhere in the arguments (keys
// and values, however deep, shown or not yet) and in the request's text
// fields. Iterative; hidden characters are found everywhere (one regex pass),
// look-alikes within a budget of text (the rest is checked as it is shown, so
// server time stays bounded); the list is capped (the count is not).
import { describeFinding, findingsOf, isPlainAscii, reveal, type Finding, type RevealMode } from "./reveal";
import type { Json } from "./bounded-tree";

export type WarningItem = { where: string; what: string };
/** `partial`: look-alike checks stopped at the budget; later values are checked when shown. */
export type Warnings = { items: WarningItem[]; total: number; partial: boolean };

const MAX_ITEMS = 20;
const MAX_WHERE = 120;
/** Code units of non-ASCII text checked for look-alikes per request, plus a per-value cost. */
export const LOOKALIKE_BUDGET = 64_000;
const PER_VALUE_COST = 100;

/** A readable, escaped location such as `records[12].note` (long ones shortened). */
function whereOf(chain: ReadonlyArray<string | number>): string {
  let out = "arguments";
  for (const step of chain) {
    out +=
      typeof step === "number"
        ? `[${step}]`
        : /^[\p{L}\p{N}_$-]+$/u.test(step)
          ? `.${step}`
          : `[${reveal(step.slice(0, 60), { json: true }).text}${step.length > 60 ? "…" : ""}]`;
    if (out.length > MAX_WHERE) return `${out.slice(0, MAX_WHERE)}…`;
  }
  return out;
}

export class WarningCollector {
  readonly items: WarningItem[] = [];
  total = 0;
  partial = false;
  private budget = LOOKALIKE_BUDGET;

  /** findingsOf(), with look-alike checks while the budget lasts. */
  private check(s: string, mode: RevealMode): Finding[] {
    if (isPlainAscii(s)) return [];
    if (this.budget <= 0) {
      this.partial = true;
      return findingsOf(s, mode, false);
    }
    this.budget -= s.length + PER_VALUE_COST;
    return findingsOf(s, mode);
  }

  add(where: () => string, findings: readonly Finding[]) {
    if (findings.length === 0) return;
    this.total += findings.length;
    if (this.items.length >= MAX_ITEMS) return;
    const w = where();
    for (const f of findings) if (this.items.length < MAX_ITEMS) this.items.push({ where: w, what: describeFinding(f) });
  }

  field(label: string, value: string | null | undefined, mode: RevealMode = {}) {
    if (value) this.add(() => label, this.check(value, mode));
  }

  /** Every key and string value of the arguments. */
  args(root: Json) {
    // A location is a chain of parent links, turned into a path only when something is found.
    type Place = { parent: Place | null; step: string | number } | null;
    const chainOf = (place: Place) => {
      const steps: Array<string | number> = [];
      for (let p = place; p; p = p.parent) steps.push(p.step);
      return steps.reverse();
    };
    const stack: Array<{ value: Json; place: Place }> = [{ value: root, place: null }];
    while (stack.length) {
      const { value, place } = stack.pop()!;
      if (typeof value === "string") {
        this.add(() => whereOf(chainOf(place)), this.check(value, { json: true }));
      } else if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const v = value[i]!;
          if (typeof v === "string" || (v !== null && typeof v === "object")) stack.push({ value: v, place: { parent: place, step: i } });
        }
      } else if (value !== null && typeof value === "object") {
        const keys = Object.keys(value);
        for (const k of keys) this.add(() => `key ${whereOf(chainOf({ parent: place, step: k }))}`, this.check(k, { json: true }));
        for (let i = keys.length - 1; i >= 0; i--) {
          const v = value[keys[i]!]!;
          if (typeof v === "string" || (v !== null && typeof v === "object")) stack.push({ value: v, place: { parent: place, step: keys[i]! } });
        }
      }
    }
  }

  result(): Warnings {
    return { items: this.items, total: this.total, partial: this.partial };
  }
}
