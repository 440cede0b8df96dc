/**
 * Which tool calls go to Countersign first ("marked"). A tool is marked when
 * it matches an `approve` glob; otherwise it passes straight through when it
 * matches an `allow` glob; otherwise, only when no `approve` glob is set, it
 * is marked unless the downstream annotates it `readOnlyHint: true`.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

export type Marks = {
  /** Globs of tool names that always need approval (`*` any run of characters, `?` one). */
  approve?: readonly string[];
  /** Globs of tool names that never need approval, unless an `approve` glob also matches. */
  allow?: readonly string[];
};

/** `*` matches any run of characters (dots included), `?` exactly one; nothing else is special. */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&"))).join("");
  return new RegExp(`^${body}$`, "u");
}

export type MarkRule = (tool: string, annotations: ToolAnnotations | undefined) => boolean;

/** Compiles the configured globs once; the rule answers "does this call need approval?". */
export function markRule(marks: Marks = {}): MarkRule {
  const approve = (marks.approve ?? []).map(globToRegExp);
  const allow = (marks.allow ?? []).map(globToRegExp);
  return (tool, annotations) => {
    if (approve.some((r) => r.test(tool))) return true;
    if (allow.some((r) => r.test(tool))) return false;
    if (approve.length > 0) return false;
    // The MCP default for readOnlyHint is false: a tool that does not say so may write.
    return annotations?.readOnlyHint !== true;
  };
}
