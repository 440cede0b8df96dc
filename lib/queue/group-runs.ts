// The queue shows the requests of one run together (docs/revisions.md): on
// each page of a section, the rows of a (service, run) that has more than
// one row there form a group, placed where its first row was. Other rows
// keep their order.
export type RunGroup<R> = { service: string; runId: string; rows: R[] };

export function groupRuns<R extends { service: string; runId: string }>(rows: readonly R[]): Array<R | RunGroup<R>> {
  const groups = new Map<string, RunGroup<R>>();
  const keyOf = (r: R) => JSON.stringify([r.service, r.runId]);
  for (const r of rows) {
    const key = keyOf(r);
    const group = groups.get(key) ?? { service: r.service, runId: r.runId, rows: [] };
    group.rows.push(r);
    groups.set(key, group);
  }
  const out: Array<R | RunGroup<R>> = [];
  const placed = new Set<string>();
  for (const r of rows) {
    const key = keyOf(r);
    const group = groups.get(key)!;
    if (group.rows.length === 1) out.push(r);
    else if (!placed.has(key)) {
      placed.add(key);
      out.push(group);
    }
  }
  return out;
}

export const isRunGroup = <R>(item: R | RunGroup<R>): item is RunGroup<R> =>
  typeof item === "object" && item !== null && "rows" in item && Array.isArray((item as RunGroup<R>).rows);
