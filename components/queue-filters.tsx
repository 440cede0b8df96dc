// The queue's search and filters: a plain GET form, so filtered views are
// links that work without JavaScript and survive a reload. Changing a filter
// starts every section at its first page (cursors are not carried over); the
// view ("My requests", …) is kept. Below 640 px the form folds into a
// "Filters" disclosure; wider, it is always open (no summary to click).
import Link from "next/link";
import { SEARCH_MAX_LENGTH } from "@/lib/queue/query-params";

export type QueueFilterValues = {
  view?: string;
  q?: string;
  service?: string;
  run?: string;
  tool?: string;
  effects?: string;
  status?: string;
  order?: string;
};

const EFFECTS = ["read", "write", "destructive"] as const;
const STATUSES = ["pending", "approved", "denied", "expired", "cancelled", "revised"] as const;
const ORDERS = [
  ["oldest", "Oldest first"],
  ["newest", "Newest first"],
  ["expiring", "Expiring soonest"],
] as const;

const field = "flex min-w-0 flex-col gap-1 text-sm font-medium";
const control = "min-h-11 w-full rounded border border-slate-300 bg-white px-2 py-2 text-base font-normal";
const noAuto = { autoComplete: "off", autoCapitalize: "off", spellCheck: false } as const;

export function QueueFilters({ values, services }: { values: QueueFilterValues; services: string[] }) {
  const { view, ...filters } = values;
  const active = Object.values(filters).filter(Boolean).length;
  return (
    <details className="rounded border border-slate-200 bg-white sm:[&::details-content]:[content-visibility:visible]" data-testid="queue-filters">
      <summary className="flex min-h-11 cursor-pointer items-center px-3 py-2 font-medium sm:hidden">
        Filters
        {active > 0 && <span className="ml-1 font-normal text-slate-600"> ({active} active)</span>}
      </summary>
      <form
        method="get"
        action="/approvals"
        role="search"
        aria-label="Search and filter requests"
        className="grid grid-cols-2 items-end gap-3 p-3 sm:grid-cols-3 lg:grid-cols-4"
      >
        {view && <input type="hidden" name="view" value={view} />}
        <label className={`${field} col-span-2`}>
          Search
          <input
            name="q"
            type="search"
            defaultValue={values.q ?? ""}
            placeholder="Tool, requester, run id or request id"
            maxLength={SEARCH_MAX_LENGTH}
            className={control}
            {...noAuto}
          />
        </label>
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
          Run
          <input
            name="run"
            type="text"
            defaultValue={values.run ?? ""}
            placeholder="Exact run id"
            maxLength={200}
            className={`${control} font-mono`}
            {...noAuto}
          />
        </label>
        <label className={field}>
          Tool
          <input
            name="tool"
            type="text"
            defaultValue={values.tool ?? ""}
            placeholder="e.g. payments.pay"
            maxLength={200}
            pattern="[A-Za-z0-9_.:\-]{1,200}"
            title="An exact tool name: letters, digits, '_', '.', ':' or '-'"
            className={`${control} font-mono`}
            {...noAuto}
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
            {ORDERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <div className="col-span-2 flex gap-2 sm:col-span-1">
          <button type="submit" className="min-h-11 flex-1 rounded bg-slate-900 px-3 py-2 font-medium text-white hover:bg-slate-700">
            Apply
          </button>
          {active > 0 && (
            <Link
              href={view ? `/approvals?view=${view}` : "/approvals"}
              className="flex min-h-11 items-center rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-100"
            >
              Clear
            </Link>
          )}
        </div>
      </form>
    </details>
  );
}
