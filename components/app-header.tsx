import Link from "next/link";
import { can, type Permission } from "@/lib/auth/permissions";

/** The admin pages and the permission each needs (the same one its page guard asks for). */
const ADMIN_LINKS: Array<{ href: string; label: string; permission: Permission }> = [
  { href: "/admin/users", label: "Users", permission: "admin:users" },
  { href: "/admin/policies", label: "Policies", permission: "admin:policies" },
  { href: "/admin/services", label: "Services", permission: "admin:services" },
  { href: "/admin/audit", label: "Audit", permission: "admin:audit" },
];

type Props = {
  user: { email: string; roles: readonly string[] };
  /** The sign-out server action (app/actions/auth.ts), passed in by the page. */
  signOut: () => Promise<void>;
};

export function AppHeader({ user, signOut }: Props) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/approvals" className="font-semibold">
          Countersign
        </Link>
        <Link href="/approvals" className="text-sm hover:underline">
          Queue
        </Link>
        {ADMIN_LINKS.filter((l) => can(user, l.permission)).map((l) => (
          <Link key={l.href} href={l.href} className="text-sm hover:underline">
            {l.label}
          </Link>
        ))}
        <span className="ml-auto text-sm text-slate-600" data-testid="current-user">
          {user.email}
        </span>
        <form action={signOut}>
          <button className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">Sign out</button>
        </form>
      </nav>
    </header>
  );
}
