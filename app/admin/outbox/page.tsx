import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { listOutbox, OUTBOX_PAGE_SIZE, OUTBOX_STATUSES, outboxQuerySchema, type OutboxAttempt } from "@/lib/notifications/outbox-view";
import { firstParam } from "@/lib/http/form-fields";
import { auditStreamView, type SinkLag } from "@/lib/audit-stream/lag";
import { StatusBadge } from "@/components/status-badge";
import { LocalTime } from "@/components/time";
import { AdminPage, Section, TextField } from "../_components/admin-page";
import { Pager, SearchRefused } from "../_components/list-paging";

export const metadata: Metadata = { title: "Outbox" };
export const dynamic = "force-dynamic";

const CHANNEL_NOTE = {
  smtp: "Email goes out through the SMTP server in SMTP_URL.",
  local: "SMTP_URL is not set: email stays here, in the local mailbox. Set SMTP_URL to send it.",
  off: "Email is off: set SMTP_URL (or NOTIFY_LOCAL_MAILBOX=1 to keep it here).",
} as const;

const CHANNEL_LABEL: Record<string, string> = { email: "email", push: "Web Push", webhook: "webhook" };

/** One message's attempts, newest first, as the services page shows a callback's. */
function Attempts({ log, total }: { log: OutboxAttempt[]; total: number }) {
  if (log.length === 0) return null;
  return (
    <details className="mt-1">
      <summary className="cursor-pointer py-1 text-xs text-blue-700">
        Attempts ({total > log.length ? `latest ${log.length} of ${total}` : log.length})
      </summary>
      <ol className="mt-1 flex flex-col gap-0.5 pl-2 text-xs" aria-label="Attempts, newest first">
        {log.map((a, i) => (
          <li key={`${a.at.toISOString()}-${i}`} data-testid="attempt">
            <LocalTime at={a.at.toISOString()} /> — <span data-testid="attempt-result">{a.result}</span>: {a.detail} · {a.durationMs} ms
          </li>
        ))}
      </ol>
    </details>
  );
}

const SINK_LABEL: Record<string, string> = {
  syslog: "Syslog (AUDIT_SYSLOG_URL)",
  otlp: "OTLP logs (AUDIT_OTLP_URL)",
  webhook: "JSON Lines webhook (AUDIT_WEBHOOK_URL)",
};

/** Each audit sink's lag: events behind the chain, the last batch it took, the last failure's class. */
function AuditSinks({ head, sinks }: { head: number; sinks: SinkLag[] }) {
  return (
    <Section title="Audit streaming" id="audit-stream-h">
      {sinks.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="audit-stream-off">
          No audit sink is configured: set AUDIT_SYSLOG_URL, AUDIT_OTLP_URL or AUDIT_WEBHOOK_URL (docs/operations.md, Audit streaming).
        </p>
      ) : (
        <table className="w-full text-left text-sm" aria-describedby="audit-stream-h">
          <thead className="text-xs text-slate-600">
            <tr>
              <th scope="col" className="py-1 pr-2">
                Sink
              </th>
              <th scope="col" className="py-1 pr-2">
                Behind (of {head})
              </th>
              <th scope="col" className="py-1 pr-2">
                Last sent
              </th>
              <th scope="col" className="py-1">
                Last error
              </th>
            </tr>
          </thead>
          <tbody>
            {sinks.map((s) => (
              <tr key={s.name} data-testid="audit-sink" className="border-t border-slate-100">
                <td className="py-1 pr-2">
                  {SINK_LABEL[s.name] ?? s.name}
                  {!s.configured && <span className="text-xs text-slate-600"> (not configured here)</span>}
                </td>
                <td className="py-1 pr-2" data-testid="audit-sink-behind">
                  {s.behind}
                </td>
                <td className="py-1 pr-2">{s.lastSentAt ? <LocalTime at={s.lastSentAt.toISOString()} /> : "never"}</td>
                <td className="py-1" data-testid="audit-sink-error">
                  {s.lastErrorClass ? (
                    <>
                      {s.lastErrorClass}
                      {s.lastErrorAt && (
                        <>
                          {" "}
                          at <LocalTime at={s.lastErrorAt.toISOString()} />
                        </>
                      )}
                    </>
                  ) : (
                    "none"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

export default async function OutboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requirePermissionPage("admin:outbox");
  const params = await searchParams;
  const parsed = outboxQuerySchema.safeParse({ status: firstParam(params.status), to: firstParam(params.to), page: firstParam(params.page) });
  const [found, stream] = await Promise.all([listOutbox(parsed.success ? parsed.data : {}), auditStreamView()]);
  const { channel, messages } = found;
  const filtered = Boolean(found.status || found.to);
  const pageHref = (page: number) => {
    const q = new URLSearchParams();
    if (found.status) q.set("status", found.status);
    if (found.to) q.set("to", found.to);
    if (page > 1) q.set("page", String(page));
    return q.size ? `/admin/outbox?${q.toString()}` : "/admin/outbox";
  };
  const from = (found.page - 1) * OUTBOX_PAGE_SIZE + 1;
  return (
    <AdminPage user={me} title="Outbox">
      <p className="text-sm text-slate-700" data-testid="email-channel">
        {CHANNEL_NOTE[channel]}
      </p>
      <AuditSinks head={stream.head} sinks={stream.sinks} />
      <Section title={filtered ? `Matching messages (${found.total}), newest first` : `Messages (${found.total}), newest first`} id="messages-h">
        <form method="get" action="/admin/outbox" role="search" aria-label="Find messages" className="mb-3 flex flex-wrap items-end gap-2">
          <label className="flex flex-col gap-1 text-sm font-medium">
            Status
            <select name="status" defaultValue={found.status ?? ""} className="rounded border border-slate-300 px-3 py-2 text-base font-normal">
              <option value="">any</option>
              {OUTBOX_STATUSES.map((st) => (
                <option key={st} value={st}>
                  {st}
                </option>
              ))}
            </select>
          </label>
          <TextField label="Recipient contains" name="to" defaultValue={found.to ?? ""} className="w-full sm:w-64" />
          <button type="submit" className="rounded border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-50">
            Find
          </button>
          {filtered && (
            <Link href="/admin/outbox" className="py-2 text-sm text-blue-700 hover:underline">
              Show all
            </Link>
          )}
        </form>
        {!parsed.success && <SearchRefused error={parsed.error} instead="Showing all messages instead." />}
        {messages.length === 0 ? (
          <p className="text-sm text-slate-600">{filtered ? "No message matches." : "No messages yet."}</p>
        ) : (
          <p className="mb-2 text-sm text-slate-600" data-testid="messages-shown">
            {found.total > OUTBOX_PAGE_SIZE ? `Showing ${from}–${from + messages.length - 1} of ${found.total}.` : `Showing all ${found.total}.`}
          </p>
        )}
        <ul className="flex flex-col gap-2">
          {messages.map((m) => (
            <li key={m.id} className="rounded border border-slate-200 p-2 text-sm" data-testid="outbox-message">
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge status={m.shownStatus} testId="message-status" small />
                <span className="font-medium">{m.subject}</span>
              </div>
              <p className="mt-1 break-all text-xs text-slate-600">
                <span data-testid="message-channel">{CHANNEL_LABEL[m.channel] ?? m.channel}</span> to{" "}
                <span data-testid="message-recipient">{m.recipient}</span> · {m.kind.replace("_", " ")} · queued{" "}
                <LocalTime at={m.createdAt.toISOString()} />
                {m.sentAt && (
                  <>
                    {" "}
                    · {m.shownStatus === "kept locally" ? "kept" : "sent"} <LocalTime at={m.sentAt.toISOString()} />
                  </>
                )}
                {" · "}
                {m.attempts} attempt{m.attempts === 1 ? "" : "s"}
                {m.status === "pending" && m.attempts > 0 && (
                  <>
                    {" "}
                    · next <LocalTime at={m.nextAttemptAt.toISOString()} />
                  </>
                )}
              </p>
              {m.outcome && <p className="text-xs text-slate-700">{m.outcome}</p>}
              {m.approvalId && (
                <Link href={`/approvals/${m.approvalId}`} className="break-all font-mono text-xs text-blue-700 hover:underline">
                  {m.approvalId}
                </Link>
              )}
              <Attempts log={m.log} total={m.attempts} />
              <details className="mt-1">
                <summary className="cursor-pointer py-1 text-xs text-blue-700">Message</summary>
                <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-slate-50 p-2 text-xs">{m.text}</pre>
              </details>
            </li>
          ))}
        </ul>
        <Pager
          label="Pages of messages"
          page={found.page}
          pages={found.pages}
          href={pageHref}
          previous={`Newer ${OUTBOX_PAGE_SIZE}`}
          next={`Older ${OUTBOX_PAGE_SIZE}`}
        />
      </Section>
    </AdminPage>
  );
}
