const STYLES: Record<string, string> = {
  pending: "bg-blue-100 text-blue-900",
  approved: "bg-green-100 text-green-900",
  denied: "bg-red-100 text-red-900",
  expired: "bg-slate-200 text-slate-800",
  cancelled: "bg-slate-200 text-slate-800",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span data-testid="status" className={`rounded px-2 py-0.5 text-sm font-medium ${STYLES[status] ?? STYLES.pending}`}>
      {status}
    </span>
  );
}
