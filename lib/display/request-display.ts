// Everything a request's page shows that a service wrote, prepared for display
// (docs/security.md): each text field revealed and flagged, the arguments as a
// bounded tree, and the warning list covering all of it.
import { firstRender, type BranchView, type Json } from "./bounded-tree";
import { flagReason, reveal, type RevealMode, type Segment } from "./reveal";
import { WarningCollector, type Warnings } from "./scan-findings";
import { clippedTextView, listedFields } from "./listed-request";

export type TextView = { segments: Segment[]; flag: string | null };

export type RequestText = {
  tool: string;
  service: string;
  environment: string | null;
  runId: string;
  callId: string;
  requestedBy: string | null;
  summary: string | null;
};

export function textView(s: string, mode: RevealMode = {}): TextView {
  const r = reveal(s, mode);
  return { segments: r.segments, flag: flagReason(r.findings) };
}

const FIELD_LABELS: Array<[keyof RequestText, string]> = [
  ["tool", "Tool"],
  ["service", "Service"],
  ["environment", "Environment"],
  ["runId", "Run"],
  ["callId", "Call"],
  ["requestedBy", "Requested by"],
  ["summary", "Summary"],
];

export type RequestDisplay = {
  fields: { [K in keyof RequestText]: TextView | null };
  args: BranchView;
  warnings: Warnings;
};

const modeOf = (name: keyof RequestText): RevealMode => (name === "summary" ? { multiline: true } : {});

export function requestDisplay(text: RequestText, args: unknown): RequestDisplay {
  const fields = {} as RequestDisplay["fields"];
  for (const [name] of FIELD_LABELS) {
    const value = text[name];
    fields[name] = value === null ? null : textView(value, modeOf(name));
  }
  return { fields, args: firstRender(args as Json), warnings: requestWarnings(text, args) };
}

/**
 * The warning at the top of a request's page, on its own: what every other
 * place that shows a request (Slack, email, push, the notification webhook)
 * carries too, so no channel has a detector of its own.
 */
export function requestWarnings(text: RequestText, args: unknown): Warnings {
  const warnings = new WarningCollector();
  for (const [name, label] of FIELD_LABELS) warnings.field(label, text[name], modeOf(name));
  warnings.args(args as Json);
  return warnings.result();
}

/**
 * For a queue row: the row's service-written fields and its key argument
 * values (redacted, lib/queue/key-args.ts), revealed, and whether any of them
 * is flagged. Each within the budget a listed request has (lib/display/listed-request):
 * a row costs the page the same whatever its fields hold.
 */
export function rowDisplay(
  row: Pick<RequestText, "tool" | "service" | "environment" | "runId" | "requestedBy" | "summary"> & {
    keyArgs: ReadonlyArray<{ key: string; value: string }>;
  },
) {
  const listed = listedFields({ ...row, callId: "" });
  const fields = {
    tool: listed.tool!,
    service: textView(row.service),
    environment: listed.environment,
    runId: listed.runId!,
    requestedBy: listed.requestedBy,
    summary: listed.summary,
  };
  const keyArgs = row.keyArgs.map((a) => ({ key: clippedTextView(a.key, KEY_ARG_CLIPS.key), value: clippedTextView(a.value, KEY_ARG_CLIPS.value) }));
  const flags = [...Object.values(fields), ...keyArgs.flatMap((a) => [a.key, a.value])].flatMap((f) => (f?.flag ? [f.flag] : []));
  return { fields, keyArgs, flagged: flags.length > 0 };
}

/** A key argument's key and value (already at most 60 and 120 characters: lib/queue/key-args.ts), within a budget. */
const KEY_ARG_CLIPS = { key: { codePoints: 60, weight: 400 }, value: { codePoints: 121, weight: 600 } };
