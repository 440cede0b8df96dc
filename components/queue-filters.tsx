// The queue's filters: a plain GET form, so filtered views are links that
// work without JavaScript and survive a reload. Changing a filter starts
// every section at its first page (cursors are not carried over).
import Link from "next/link";

export type QueueFilterValues = {
  service?: string;
  tool?: string;
  effects?: string;
  status?: string;
  order?: string;
};

const EFFECTS = ["read", "write", "destructive"] as const;
const STATUSES = ["pending", "approved", "denied", "expired", "cancelled"] as const;

const field = "flex min-w-0 flex-col gap-1 text-sm font-medium";
const control = "min-h-11 w-full rounded border border-slate-300 bg-white px-2 py-2 text-base font-normal";

export function QueueFilters({ values, services }: { values: QueueFilterValues; services: string[] }) {
  const active = Object.values(values).some(Boolean);
  return (
    <form
      method="get"
      action="/approvals"
      role="search"
      aria-label="Filter requests"
      className="grid grid-cols-2 items-end gap-3 rounded border border-slate-200 bg-white p-3 sm:grid-cols-3 lg:grid-cols-6"
    >
      <label className={field}>
        Service
        <select name="service" defaultValue={values.service ?? ""} className={control}>
          <option value="">Any service</option>
          {services.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className={field}>
        Tool
        <input
          name="tool"
          type="text"
          defaultValue={values.tool ?? ""}
          placeholder="e.g. payments.pay"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          maxLength={200}
          pattern="[A-Za-z0-9_.:\-]{1,200}"
          title="An exact tool name: letters, digits, '_', '.', ':' or '-'"
          className={`${control} font-mono`}
        />
      </label>
      <label className={field}>
        Effects
        <select name="effects" defaultValue={values.effects ?? ""} className={control}>
          <option value="">Any effects</option>
          {EFFECTS.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <label className={field}>
        Status
        <select name="status" defaultValue={values.status ?? ""} className={control}>
          <option value="">Any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className={field}>
        Pending order
        <select name="order" defaultValue={values.order ?? "oldest"} className={control}>
          <option value="oldest">Oldest first</option>
          <option value="newest">Newest first</option>
        </select>
      </label>
      <div className="col-span-2 flex gap-2 sm:col-span-1">
        <button type="submit" className="min-h-11 flex-1 rounded bg-slate-900 px-3 py-2 font-medium text-white hover:bg-slate-700">
          Apply
        </button>
        {active && (
          <Link href="/approvals" className="flex min-h-11 items-center rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-100">
            Clear
          </Link>
        )}
      </div>
    </form>
  );
}
