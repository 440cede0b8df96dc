// The warning at the top of a request's page when anything a service wrote
// holds hidden, direction-changing or look-alike characters (docs/security.md).
// Locations and findings are already escaped text (lib/display/scan-findings).
import { DISPLAY_WARNING_TITLE } from "@/lib/display/channel-text";
import type { Warnings } from "@/lib/display/scan-findings";

const PARTIAL =
  "Look-alike letters were checked in the first part of these arguments only (they are large); values further on are marked when you open them. Hidden characters were checked everywhere.";

export function DisplayWarning({ warnings }: { warnings: Warnings }) {
  if (warnings.total === 0) {
    if (!warnings.partial) return null;
    return (
      <p role="note" className="rounded border border-slate-300 bg-slate-50 p-3 text-sm text-slate-700" data-testid="display-partial">
        {PARTIAL}
      </p>
    );
  }
  const more = warnings.total - warnings.items.length;
  return (
    <section
      role="alert"
      aria-labelledby="display-warning-h"
      className="rounded border-2 border-red-700 bg-red-50 p-4 text-red-950"
      data-testid="display-warning"
    >
      <h2 id="display-warning-h" className="font-semibold">
        {DISPLAY_WARNING_TITLE}
      </h2>
      <p className="mt-1 text-sm">
        They are shown below as escapes such as <span className="font-mono">⟨U+202E⟩</span> and marked with ⚠. What runs is the text with these
        characters, not what it seems to say.
      </p>
      <ul className="mt-2 list-disc pl-5 text-sm">
        {warnings.items.map((w, i) => (
          <li key={i}>
            <bdi dir="ltr" className="break-all font-mono">
              {w.where}
            </bdi>
            : {w.what}
          </li>
        ))}
        {more > 0 && <li>and {more.toLocaleString("en-US")} more</li>}
      </ul>
      {warnings.partial && <p className="mt-2 text-sm">{PARTIAL}</p>}
    </section>
  );
}
