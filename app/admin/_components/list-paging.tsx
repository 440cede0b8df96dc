// What the admin list pages (users, outbox) share around their lists: the
// refusal of a search they could not use, and the links between pages.
import Link from "next/link";
import type { z } from "zod";

/** Says in words why the search was not used; the page then lists everything. */
export function SearchRefused({ error, instead }: { error: z.ZodError; instead: string }) {
  return (
    <p role="alert" className="mb-3 rounded border border-red-300 bg-red-50 p-2 text-sm text-red-800">
      That search could not be used: {error.issues.map((i) => i.message).join("; ")}. {instead}
    </p>
  );
}

/** Links to the page before and after `page` (of `pages`), when there is more than one. */
export function Pager(props: { label: string; page: number; pages: number; href: (page: number) => string; previous: string; next: string }) {
  const { label, page, pages, href, previous, next } = props;
  if (pages <= 1) return null;
  return (
    <nav aria-label={label} className="mt-3 flex flex-wrap gap-4 text-sm">
      {page > 1 && (
        <Link href={href(page - 1)} className="text-blue-700 hover:underline">
          {previous}
        </Link>
      )}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages && (
        <Link href={href(page + 1)} className="text-blue-700 hover:underline">
          {next}
        </Link>
      )}
    </nav>
  );
}
