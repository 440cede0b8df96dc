"use client";
// The header's page links, with the page being shown marked for sight and for
// assistive tech. Which links a user gets is decided by the header (server).
import Link from "next/link";
import { usePathname } from "next/navigation";

export type NavLink = { href: string; label: string };

export function NavLinks({ links }: { links: readonly NavLink[] }) {
  const pathname = usePathname();
  return (
    <ul className="flex flex-col gap-3 lg:flex-row lg:flex-wrap lg:items-center lg:gap-x-4 lg:gap-y-1">
      {links.map((l) => {
        // The exact page is "page"; a page below it (a request under the queue) is its section.
        const current = pathname === l.href ? "page" : pathname.startsWith(`${l.href}/`) ? "true" : undefined;
        return (
          <li key={l.href}>
            <Link
              href={l.href}
              aria-current={current}
              className={`text-sm underline-offset-4 hover:underline ${current ? "font-semibold text-slate-900 underline decoration-2" : "text-slate-700"}`}
            >
              {l.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
