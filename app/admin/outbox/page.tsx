import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { listOutbox, type OutboxAttempt } from "@/lib/notifications/outbox-view";
import { StatusBadge } from "@/components/status-badge";
import { LocalTime } from "@/components/time";
import { AdminPage, Section } from "../_components/admin-page";

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

export default async function OutboxPage() {
  const me = await requirePermissionPage("admin:outbox");
  const { channel, messages } = await listOutbox();
  return (
    <AdminPage user={me} title="Outbox">
      <p className="text-sm text-slate-700" data-testid="email-channel">
        {CHANNEL_NOTE[channel]}
      </p>
      <Section title={`Messages (${messages.length}, newest first)`} id="messages-h">
        {messages.length === 0 && <p className="text-sm text-slate-600">No messages yet.</p>}
        <ul className="flex flex-col gap-2">
          {messages.map((m) => (
            <li key={m.id} className="rounded border border-slate-200 p-2 text-sm" data-testid="outbox-message">
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge status={m.status} testId="message-status" small />
                <span className="font-medium">{m.subject}</span>
              </div>
              <p className="mt-1 break-all text-xs text-slate-600">
                <span data-testid="message-channel">{CHANNEL_LABEL[m.channel] ?? m.channel}</span> to{" "}
                <span data-testid="message-recipient">{m.recipient}</span> · {m.kind.replace("_", " ")} · queued{" "}
                <LocalTime at={m.createdAt.toISOString()} />
                {m.sentAt && (
                  <>
                    {" "}
                    · sent <LocalTime at={m.sentAt.toISOString()} />
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
      </Section>
    </AdminPage>
  );
}
