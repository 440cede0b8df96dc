import Link from "next/link";
import { can, type Permission } from "@/lib/auth/permissions";
import { NavLinks } from "./nav-links";

/** The header's pages and the permission each needs (the same one its page guard asks for). */
const LINKS: Array<{ href: string; label: string; permission: Permission }> = [
  { href: "/approvals", label: "Queue", permission: "queue:view" },
  { href: "/standing", label: "Standing approvals", permission: "queue:view" },
  { href: "/admin/users", label: "Users", permission: "admin:users" },
  { href: "/admin/groups", label: "Groups", permission: "admin:users" },
  { href: "/admin/policies", label: "Policies", permission: "admin:policies" },
  { href: "/admin/services", label: "Services", permission: "admin:services" },
  { href: "/admin/audit", label: "Audit", permission: "admin:audit" },
  { href: "/admin/outbox", label: "Outbox", permission: "admin:outbox" },
  { href: "/admin/executions", label: "Executions", permission: "admin:executions" },
  { href: "/admin/insights", label: "Insights", permission: "admin:insights" },
  // Everyone's own notification channels and browsers.
  { href: "/settings", label: "Settings", permission: "queue:view" },
];

type Props = {
  user: { email: string; roles: readonly string[] };
  /** The sign-out server action (app/actions/auth.ts), passed in by the page. */
  signOut: () => Promise<void>;
};

export function AppHeader({ user, signOut }: Props) {
  const links = LINKS.filter((l) => can(user, l.permission)).map(({ href, label }) => ({ href, label }));
  return (
    <header className="relative border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-7xl items-center gap-4 px-4 py-2 lg:py-3">
        <Link href="/approvals" className="shrink-0 font-semibold">
          Countersign
        </Link>
        {/* Below lg the links, who is signed in and Sign out fold into a "Menu" disclosure (one row, not four);
            wider, it is always open and its summary is hidden. */}
        <details className="group ml-auto lg:ml-0 lg:flex-1 lg:[&::details-content]:[content-visibility:visible]" data-testid="header-menu">
          <summary className="flex min-h-11 cursor-pointer items-center gap-1 rounded border border-slate-300 px-3 text-sm font-medium lg:hidden">
            Menu <span aria-hidden="true">{"\u25be"}</span>
          </summary>
          <div className="flex gap-4 max-lg:absolute max-lg:inset-x-0 max-lg:top-full max-lg:z-30 max-lg:flex-col max-lg:border-b max-lg:border-slate-200 max-lg:bg-white max-lg:p-4 max-lg:shadow lg:items-center">
            <NavLinks links={links} />
            <span className="block min-w-0 truncate text-sm text-slate-600 lg:ml-auto lg:max-w-64" title={user.email} data-testid="current-user">
              {user.email}
            </span>
            <form action={signOut} className="shrink-0">
              <button className="whitespace-nowrap rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">Sign out</button>
            </form>
          </div>
        </details>
      </nav>
    </header>
  );
}
