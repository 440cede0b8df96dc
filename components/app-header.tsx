import Link from "next/link";
import { signOutAction } from "@/app/actions/auth";

export function AppHeader({ user }: { user: { email: string; roles: readonly string[] } }) {
  const isAdmin = user.roles.includes("admin");
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/approvals" className="font-semibold">Countersign</Link>
        <Link href="/approvals" className="text-sm hover:underline">Queue</Link>
        {isAdmin && (
          <>
            <Link href="/admin/users" className="text-sm hover:underline">Users</Link>
            <Link href="/admin/policies" className="text-sm hover:underline">Policies</Link>
            <Link href="/admin/services" className="text-sm hover:underline">Services</Link>
            <Link href="/admin/audit" className="text-sm hover:underline">Audit</Link>
          </>
        )}
        <span className="ml-auto text-sm text-slate-600" data-testid="current-user">{user.email}</span>
        <form action={signOutAction}>
          <button className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100">Sign out</button>
        </form>
      </nav>
    </header>
  );
}
