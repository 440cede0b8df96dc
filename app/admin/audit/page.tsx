import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { AUDIT_EVENT_TYPES } from "@/lib/audit/events";
import { AUDIT_FILTERS, auditQuerySchema, findAuditEvents } from "@/lib/audit/find-events";
import { verifyChain } from "@/lib/audit/verify-chain";
import { retentionState } from "@/lib/retention/retention-state";
import { issuesOf } from "@/lib/errors";
import { LocalTime } from "@/components/time";
import { AdminPage, Section, TextField } from "../_components/admin-page";
import { ScrollRegion } from "@/components/scroll-region";
import { firstParam } from "@/lib/http/form-fields";

export const metadata: Metadata = { title: "Audit" };
export const dynamic = "force-dynamic";

// Kept across pages; `limit` (page size) has no form field but is honoured.
const FILTERS = ["type", "actor", "approvalId", "from", "to", "limit"] as const;

/** An actor that wraps only after "user:" and before "@" (never inside a word), e.g. user:<wbr>ana<wbr>@example.com. */
function Actor({ actor }: { actor: string }) {
  const parts = actor.split(/(?<=:)|(?=@)/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {p}
        </span>
      ))}
    </>
  );
}

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requirePermissionPage("admin:audit");
  const params = await searchParams;
  const raw = Object.fromEntries([...FILTERS, "before"].map((k) => [k, firstParam(params[k])]));
  const parsed = auditQuerySchema.safeParse(raw);
  const result = parsed.success ? await findAuditEvents(raw) : null;
  const chain = await verifyChain();
  const retention = await retentionState();

  const filterQuery = new URLSearchParams();
  for (const k of FILTERS) if (raw[k]) filterQuery.set(k, raw[k]!);
  // The export honours the filter (not the page size or position).
  const exportQuery = new URLSearchParams();
  for (const k of AUDIT_FILTERS) if (raw[k]) exportQuery.set(k, raw[k]!);
  const olderHref = (before: number) => {
    const q = new URLSearchParams(filterQuery);
    q.set("before", String(before));
    return `/admin/audit?${q.toString()}`;
  };

  return (
    <AdminPage user={me} title="Audit trail">
      <Section title="Chain" id="chain-h">
        {chain.ok ? (
          <p className="text-sm" data-testid="chain-state">
            The hash chain verifies: {chain.events} events
            {chain.archived_through ? ` after the archived events 1 to ${chain.archived_through}` : ""}, head{" "}
            <code className="break-all">{chain.head}</code>.
          </p>
        ) : (
          <p role="alert" className="rounded border border-red-300 bg-red-50 p-2 text-sm text-red-800" data-testid="chain-state">
            The hash chain is broken at event {chain.seq} ({chain.reason}). Keep a copy of the database and investigate.
          </p>
        )}
        <p className="mt-2 text-sm">
          <a href="/admin/audit/export" className="text-blue-700 underline">
            Download the whole chain (JSON Lines)
          </a>{" "}
          {parsed.success && exportQuery.size > 0 && (
            <>
              ·{" "}
              <a href={`/admin/audit/export?${exportQuery.toString()}`} className="text-blue-700 underline" data-testid="export-filtered">
                Download the filtered events (JSON Lines; not a verifiable chain)
              </a>{" "}
            </>
          )}
          · To detect deleted newest events, keep the output of <code>npm run admin -- audit checkpoint</code> outside the database and run{" "}
          <code>audit verify --checkpoint FILE</code>.
        </p>
      </Section>
      <Section title="Retention" id="retention-h">
        <div className="space-y-1 text-sm" data-testid="retention-state">
          <p data-testid="retention-setting">
            {retention.days === null
              ? "RETENTION_DAYS is not set: requests keep their arguments for ever."
              : `Decided requests keep their arguments for ${retention.days} days (RETENTION_DAYS); after that a background job purges them.`}
          </p>
          <p>
            <span data-testid="retention-purged">{retention.purged}</span> requests have lost their arguments
            {retention.lastPurgeAt && (
              <>
                ; the last purge was <LocalTime at={retention.lastPurgeAt.toISOString()} />
              </>
            )}
            .{retention.due > 0 && <span data-testid="retention-due"> {retention.due} more are due and will be purged within minutes.</span>}
          </p>
          {retention.archives.length === 0 ? (
            <p>No part of the chain has been archived.</p>
          ) : (
            <>
              <p>
                Archived and pruned from the database (keep these files: <code>audit verify --archive FILE…</code> checks the whole history with
                them):
              </p>
              <ul className="list-disc pl-5" data-testid="retention-archives">
                {retention.archives.map((a) => (
                  <li key={a.firstSeq}>
                    <code>{a.fileName}</code>: events {a.firstSeq} to {a.lastSeq} (before <LocalTime at={a.before.toISOString()} />
                    ), SHA-256 <code className="break-all">{a.sha256}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      </Section>
      <p className="text-sm text-slate-700">Every change and refusal, newest first.</p>

      <Section title="Filter" id="filter-h">
        <form method="get" action="/admin/audit" className="flex flex-wrap items-end gap-3">
          <label className="flex flex-col gap-1 text-sm font-medium">
            Event type
            <select name="type" defaultValue={raw.type ?? ""} className="rounded border border-slate-300 px-3 py-2 text-base font-normal">
              <option value="">any</option>
              {AUDIT_EVENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <TextField label="Actor" name="actor" defaultValue={raw.actor ?? ""} placeholder="user:ana@example.com" className="w-full sm:w-56" />
          <TextField label="Approval id" name="approvalId" defaultValue={raw.approvalId ?? ""} placeholder="apr_…" className="w-full sm:w-56" />
          <TextField label="From (UTC)" name="from" type="datetime-local" defaultValue={raw.from ?? ""} />
          <TextField label="To (UTC)" name="to" type="datetime-local" defaultValue={raw.to ?? ""} />
          <button type="submit" className="rounded bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700">
            Filter
          </button>
          <Link href="/admin/audit" className="px-1 py-2 text-sm text-blue-700 hover:underline">
            Clear
          </Link>
        </form>
      </Section>

      {!parsed.success && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
          Invalid filter:{" "}
          {issuesOf(parsed.error)
            .map((i) => `${i.path}: ${i.message}`)
            .join("; ")}
        </p>
      )}

      {result && (
        <Section title="Events" id="events-h">
          {result.events.length === 0 ? (
            <p className="text-sm text-slate-600">No events match.</p>
          ) : (
            <ScrollRegion label="Audit events">
              <table className="w-full min-w-[40rem] text-left text-sm">
                <thead className="text-xs text-slate-600">
                  <tr>
                    <th scope="col" className="py-1 pr-2">
                      #
                    </th>
                    <th scope="col" className="py-1 pr-2">
                      Time
                    </th>
                    <th scope="col" className="py-1 pr-2">
                      Type
                    </th>
                    <th scope="col" className="py-1 pr-2">
                      Actor
                    </th>
                    <th scope="col" className="py-1 pr-2">
                      Approval
                    </th>
                    <th scope="col" className="py-1">
                      Data
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {result.events.map((e) => (
                    <tr key={e.seq} className="border-t border-slate-100 align-top" data-testid="audit-event">
                      <td className="py-1 pr-2 font-mono">{e.seq}</td>
                      <td className="whitespace-nowrap py-1 pr-2">
                        <LocalTime at={e.at.toISOString()} />
                      </td>
                      <td className="py-1 pr-2 font-mono" data-testid="audit-type">
                        {e.type}
                      </td>
                      <td className="py-1 pr-2" data-testid="audit-actor">
                        <Actor actor={e.actor} />
                      </td>
                      <td className="break-all py-1 pr-2 font-mono">
                        {e.approvalId ? (
                          <Link href={`/approvals/${e.approvalId}`} className="text-blue-700 hover:underline">
                            {e.approvalId}
                          </Link>
                        ) : (
                          "—"
                        )}
                      </td>
                      <td className="break-all py-1 font-mono text-xs" data-testid="audit-data">
                        {JSON.stringify(e.data)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
          <nav aria-label="Pages" className="mt-3 flex gap-4 text-sm">
            {raw.before && (
              <Link href={`/admin/audit${filterQuery.size ? `?${filterQuery.toString()}` : ""}`} className="text-blue-700 hover:underline">
                Newest events
              </Link>
            )}
            {result.nextBefore !== null && (
              <Link href={olderHref(result.nextBefore)} className="text-blue-700 hover:underline">
                Older events
              </Link>
            )}
          </nav>
        </Section>
      )}
    </AdminPage>
  );
}
