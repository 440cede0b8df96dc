// Validation of admin-defined redaction patterns.
//
// Approach (why not V8's linear-time engine): Node 20 can run a regex in
// linear time per exec with the `l` flag, but only after the process-wide
// V8 flag `--enable-experimental-regexp-engine` is set (Node documents
// setting V8 flags after start-up as unpredictable), the engine is
// experimental, rejects the `i` flag, and a global replace can still be
// quadratic (each exec is linear but `a.*b|a` scans to the end of the text
// for every one-character match: measured > 60 s on 200 KiB). So this
// module keeps the ordinary engine and only accepts a conservative subset
// whose worst-case backtracking is provably bounded:
//
//   1. The pattern is parsed by a strict parser (pattern-parse.ts). Anything
//      it does not understand is rejected; backreferences, lookarounds,
//      `\p{..}`, `\c`, octal escapes and unescaped `{ } ]` are rejected
//      explicitly.
//   2. A quantifier that can repeat more than once must apply to something
//      of fixed length that can match a given text in only one way (checked
//      in pattern-shape.ts): no
//      nested variable quantifiers (`(a+)+`, `(.*)*`, `(\d{1,3}\.){3}`), no
//      alternatives of different lengths (`(a|ab)*`), no overlapping
//      alternatives (`(a|a)*`, `(\w|\d)*`). This removes exponential cases.
//   3. Every quantifier needs an upper bound (`{1,64}` instead of `+`), at
//      most MAX_REPEAT: even `\w+x` is quadratic on a long word, because a
//      global scan restarts at every position and rescans the word.
//   4. With 1-3 in place, the number of steps a backtracking engine can take
//      from one start position is bounded by a computable cost
//      (pattern-cost.ts); the pattern is rejected when it exceeds
//      COST_BUDGET. A scan of a text of n characters then costs at most
//      about n * COST_BUDGET steps
//      (measured: patterns at the budget take 0.2-0.5 s on 200 KiB of their
//      worst input on a loaded 2-core machine).
//   5. The pattern must not match the empty text (it would tag every gap).
//
// Patterns are compiled with the `g` flag only: case-sensitive, `.` does not
// match line breaks, `^`/`$` are the start/end of each string.

import { RESERVED_RULE_NAMES } from "./names";
import { cost } from "./pattern-cost";
import { PatternError, type PatternNode, type RepeatNode, parsePattern } from "./pattern-parse";
import { nullable, repeatedBodyProblem, walk, width } from "./pattern-shape";

export const CUSTOM_RULE_NAME_RE = /^[a-z][a-z0-9_]{0,39}$/;
export const MAX_PATTERN_LENGTH = 500;
/** Largest allowed bound in `{n}` / `{n,m}`. */
export const MAX_REPEAT = 128;
/** Longest text a custom pattern may match. */
export const MAX_MATCH_LENGTH = 4096;
/** Worst-case backtracking steps from one start position. */
export const COST_BUDGET = 300;

export type PatternCheck =
  | { ok: true; /** Shortest text the pattern can match (at least 1). */ minLength: number }
  | { ok: false; field: "name" | "pattern"; message: string };

function analyse(root: PatternNode): string | undefined {
  const nodes = [...walk(root)];
  const reps = nodes.filter((n): n is RepeatNode => n.kind === "repeat");
  for (const rep of reps)
    if ((rep.max !== Infinity && rep.max > MAX_REPEAT) || rep.min > MAX_REPEAT)
      return `quantifier "${rep.text}" is too large (bounds up to ${MAX_REPEAT} are allowed)`;
  const w = width(root);
  if (w.max !== Infinity && w.max > MAX_MATCH_LENGTH) return `pattern can match texts longer than ${MAX_MATCH_LENGTH} characters`;
  for (const rep of reps) {
    if (rep.max <= 1) continue;
    const problem = repeatedBodyProblem(rep);
    if (problem) return problem;
  }
  for (const rep of reps)
    if (rep.max === Infinity)
      return `unbounded quantifier "${rep.text}": give it an upper bound such as {1,64} (at most ${MAX_REPEAT}), so that matching stays linear on long inputs`;
  if (nullable(root)) return "pattern can match empty text; it must always match at least one character";
  const { c } = cost(root);
  if (c > COST_BUDGET)
    return `pattern is too expensive to run on long inputs: up to ${c > 1e6 ? "millions of" : Math.round(c)} backtracking steps per position (limit ${COST_BUDGET}); use smaller bounds or fewer optional parts`;
  return undefined;
}

/**
 * Checks a custom rule before it is stored. Never throws.
 * Returns which field is wrong so a form can point at it.
 */
export function validateCustomPattern(name: string, pattern: string): PatternCheck {
  if (typeof name !== "string" || !CUSTOM_RULE_NAME_RE.test(name))
    return { ok: false, field: "name", message: "name must be 1-40 characters: a lowercase letter, then lowercase letters, digits or underscores" };
  if (RESERVED_RULE_NAMES.has(name)) return { ok: false, field: "name", message: `name "${name}" is used by a built-in rule` };
  if (typeof pattern !== "string" || pattern.length === 0) return { ok: false, field: "pattern", message: "pattern is empty" };
  if (pattern.length > MAX_PATTERN_LENGTH) return { ok: false, field: "pattern", message: `pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(pattern, "g");
  } catch (error) {
    return { ok: false, field: "pattern", message: error instanceof Error ? error.message : "invalid regular expression" };
  }
  try {
    const root = parsePattern(pattern);
    const problem = analyse(root);
    return problem ? { ok: false, field: "pattern", message: problem } : { ok: true, minLength: Math.max(1, width(root).min) };
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, field: "pattern", message: error.message };
    return { ok: false, field: "pattern", message: "pattern could not be analysed" };
  }
}

/** For tests and diagnostics: the per-position cost bound of an accepted-shape pattern. */
export function patternCost(pattern: string): number {
  return cost(parsePattern(pattern)).c;
}
