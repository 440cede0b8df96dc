import Link from "next/link";
import { can, type Permission } from "@/lib/auth/permissions";
import { NavLinks } from "./nav-links";

/** The header's pages and the permission each needs (the same one its page guard asks for). */
const LINKS: Array<{ href: string; label: string; permission: Permission }> = [
  { href: "/approvals", label: "Queue", permission: "queue:view" },
  { href: "/standing", label: "Standing approvals", permission: "queue:view" },
  { href: "/admin/users", label: "Users", permission: "admin:users" },
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
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/approvals" className="font-semibold">
          Countersign
        </Link>
        <NavLinks links={links} />
        <span className="ml-auto break-all text-sm text-slate-600" data-testid="current-user">
          {user.email}
        </span>
        <form action={signOut}>
          <button className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">Sign out</button>
        </form>
      </nav>
    </header>
  );
}
