// The top of a request's page, on a phone's first screen above the decision
// bar: what will run. The agent's summary (clamped, boxed as untrusted; the
// whole of it is further down), the arguments' first lines with how many
// more there are, and the four-eyes progress with the time left. The lines
// come from lib/display/argument-glance, the progress from lib/reviews/progress.
// The lines count as seen (lib/display/arguments-seen) only when they are
// the whole arguments; otherwise the arguments' own viewer must be seen.
import { TimeLeft } from "@/components/time";
import { Flag, RevealedText, Segments } from "@/components/revealed-text";
import type { ArgumentGlance, GlanceLine } from "@/lib/display/argument-glance";
import type { KeyView } from "@/lib/display/bounded-tree";
import type { TextView } from "@/lib/display/request-display";
import { countLabel } from "@/lib/display/tree-state";

type Props = {
  summary: TextView | null;
  glance: ArgumentGlance;
  /** "1 of 2 approvals — …", or null once decided. */
  progress: string | null;
  expiresAt: string;
};

function Key({ name }: { name: KeyView | number | null }) {
  if (name === null) return null;
  if (typeof name === "number") return <span className="text-slate-500">{name}: </span>;
  return (
    <span className="text-slate-500">
      <bdi dir="ltr">
        <Segments segments={name.segments} />
        {name.rest > 0 && "…"}
      </bdi>
      :{" "}
    </span>
  );
}

function Line({ line }: { line: GlanceLine }) {
  const indent = { paddingLeft: `${Math.min(line.depth, 6)}rem` };
  if (line.kind === "branch") {
    return (
      <li className="truncate" style={indent}>
        <Key name={line.key} />
        <span className="text-slate-500">
          {line.size === 0
            ? line.type === "array"
              ? "[]"
              : "{}"
            : line.type === "array"
              ? `[${countLabel("array", line.size)}]`
              : `{${countLabel("object", line.size)}}`}
        </span>
        <Flag reason={line.key !== null && typeof line.key === "object" ? line.key.flag : null} compact />
      </li>
    );
  }
  const { leaf } = line;
  const tone = leaf.redacted ? "rounded bg-amber-100 px-1 text-amber-900" : leaf.type === "string" ? "text-slate-800" : "text-blue-900";
  return (
    <li className="truncate" style={indent}>
      <Key name={leaf.key} />
      <bdi dir="ltr" className={tone}>
        <Segments segments={leaf.segments} />
        {leaf.rest > 0 && "…"}
      </bdi>
      <Flag reason={leaf.flag ?? (leaf.key !== null && typeof leaf.key === "object" ? leaf.key.flag : null)} compact />
    </li>
  );
}

export function RequestGlance({ summary, glance, progress, expiresAt }: Props) {
  const whole = glance.more === 0;
  return (
    <section aria-labelledby="glance-h" className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-3" data-testid="glance">
      <h2 id="glance-h" className="sr-only">
        What will run
      </h2>
      {summary && (
        <div className="border-l-4 border-amber-400 bg-amber-50 py-1 pl-2 text-sm" data-testid="glance-summary">
          <span className="text-xs font-semibold not-italic text-amber-950">Agent&apos;s summary (untrusted): </span>
          <span className="line-clamp-3 whitespace-pre-wrap break-words font-serif italic">
            <RevealedText value={summary} />
          </span>
        </div>
      )}
      <div className="min-w-0 font-mono text-sm" data-testid="glance-args" data-arguments-view={whole ? "" : undefined}>
        <span className="sr-only">Arguments: </span>
        {glance.lines.length === 0 ? (
          <p className="text-slate-500">No arguments</p>
        ) : (
          <ul aria-label="The arguments' first lines">
            {glance.lines.map((l, i) => (
              <Line key={i} line={l} />
            ))}
          </ul>
        )}
        {!whole && (
          <a href="#arguments" className="font-sans text-sm text-blue-800 underline" data-testid="glance-more">
            … {glance.more.toLocaleString("en-US")} more line{glance.more === 1 ? "" : "s"}: see all the arguments
          </a>
        )}
      </div>
      {progress && (
        <p className="text-sm font-medium" data-testid="glance-progress">
          {progress} · <TimeLeft until={expiresAt} />
        </p>
      )}
    </section>
  );
}
