// A proposal's changes as a table: what each operation does, where, the
// value before and after (shown values only, revealed like every value a
// service wrote).
import { RevealedText } from "@/components/revealed-text";
import type { ChangeRow } from "@/lib/revisions/revision-view";
import { ScrollRegion } from "./scroll-region";

const WORDS = { replace: "Changed", add: "Added", remove: "Removed" } as const;

export function RevisionChanges({ changes, testId }: { changes: readonly ChangeRow[]; testId: string }) {
  return (
    <ScrollRegion label="Changes">
      <table className="w-full text-left text-sm" data-testid={testId}>
        <thead>
          <tr className="border-b border-slate-200 text-xs text-slate-600">
            <th className="py-1 pr-2 font-medium">Change</th>
            <th className="py-1 pr-2 font-medium">Path</th>
            <th className="py-1 pr-2 font-medium">Before</th>
            <th className="py-1 font-medium">After</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((c, i) => (
            <tr key={i} className="border-b border-slate-100 align-top">
              <td className="py-1 pr-2">{WORDS[c.op]}</td>
              <td className="break-all py-1 pr-2 font-mono">
                <RevealedText value={c.path} />
              </td>
              <td className="break-all py-1 pr-2 font-mono text-red-900">{c.before ? <RevealedText value={c.before} /> : "—"}</td>
              <td className="break-all py-1 font-mono text-green-900">{c.after ? <RevealedText value={c.after} /> : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
