// A status as a coloured word (a request's, a user's, a service's); assistive
// tech hears "Status: approved" while the visible word stays short.
const STYLES: Record<string, string> = {
  pending: "bg-blue-100 text-blue-900",
  approved: "bg-green-100 text-green-900",
  denied: "bg-red-100 text-red-900",
  expired: "bg-slate-200 text-slate-800",
  cancelled: "bg-slate-200 text-slate-800",
  revised: "bg-amber-100 text-amber-900",
  active: "bg-green-100 text-green-900",
  disabled: "bg-red-100 text-red-900",
  sent: "bg-green-100 text-green-900",
  failed: "bg-red-100 text-red-900",
  dropped: "bg-slate-200 text-slate-800",
  // An email the local mailbox kept (no SMTP_URL): written, not sent.
  "kept locally": "bg-amber-100 text-amber-900",
};

type Props = { status: string; testId?: string; small?: boolean };

export function StatusBadge({ status, testId = "status", small = false }: Props) {
  return (
    <span className={`rounded px-2 py-0.5 font-medium ${small ? "text-xs" : "text-sm"} ${STYLES[status] ?? STYLES.pending}`}>
      <span className="sr-only">Status: </span>
      <span data-testid={testId}>{status}</span>
    </span>
  );
}
