import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { findUsers, USERS_PAGE_SIZE, usersQuerySchema } from "@/lib/users/list-users";
import { ActionForm } from "../_components/action-form";
import { Pager, SearchRefused } from "../_components/list-paging";
import { StatusBadge } from "@/components/status-badge";
import { LocalTime } from "@/components/time";
import { AdminPage, Section, TextField, AnywayCheckbox } from "../_components/admin-page";
import { createUserAction, disableUserAction, enableUserAction, grantRoleAction, revokeRoleAction, unlinkSlackAction } from "./actions";
import { firstParam } from "@/lib/http/form-fields";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

const handRoles = (u: { roles: Array<{ role: string; viaGroup: string | null }> }) => u.roles.filter((r) => r.viaGroup === null).map((r) => r.role);

export default async function UsersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requirePermissionPage("admin:users");
  const params = await searchParams;
  const parsed = usersQuerySchema.safeParse({ q: firstParam(params.q), page: firstParam(params.page) });
  const found = await findUsers(parsed.success ? parsed.data : { q: undefined, page: 1 });
  const users = found.users;
  const pageHref = (page: number) => {
    const q = new URLSearchParams();
    if (found.q) q.set("q", found.q);
    if (page > 1) q.set("page", String(page));
    return q.size ? `/admin/users?${q.toString()}` : "/admin/users";
  };
  const from = (found.page - 1) * USERS_PAGE_SIZE + 1;

  return (
    <AdminPage user={me} title="Users">
      <Section title="Create a user" id="create-user-h">
        <ActionForm action={createUserAction} submitLabel="Create user">
          <TextField label="Email" name="email" type="email" required className="w-full sm:w-64" />
          <TextField label="Name" name="name" className="w-full sm:w-48" />
          <TextField
            label="Password"
            name="password"
            type="password"
            className="w-full sm:w-48"
            help="Optional: only for password sign-in (10+ characters)."
          />
          <TextField label="Roles" name="roles" placeholder="reviewer, payments" help="Comma-separated; may be empty." className="w-full sm:w-48" />
          <AnywayCheckbox label="Create anyway" help="Even if no policy uses them yet" />
        </ActionForm>
      </Section>

      <Section title={found.q ? `Users matching “${found.q}” (${found.total})` : `All users (${found.total})`} id="users-h">
        <form method="get" action="/admin/users" role="search" aria-label="Find users" className="mb-3 flex flex-wrap items-end gap-2">
          <TextField label="Email or name contains" name="q" defaultValue={found.q ?? ""} className="w-full sm:w-64" />
          <button type="submit" className="rounded border border-slate-300 px-3 py-2 text-sm font-medium hover:bg-slate-50">
            Find
          </button>
          {found.q && (
            <Link href="/admin/users" className="py-2 text-sm text-blue-700 hover:underline">
              Show all
            </Link>
          )}
        </form>
        {!parsed.success && <SearchRefused error={parsed.error} instead="Showing all users instead." />}
        {found.total === 0 ? (
          <p className="text-sm text-slate-600">No user matches.</p>
        ) : (
          <p className="mb-2 text-sm text-slate-600" data-testid="users-shown">
            {found.total > USERS_PAGE_SIZE
              ? `Showing ${from}–${from + users.length - 1} of ${found.total}, by email.`
              : `${found.total} shown, by email.`}
          </p>
        )}
        <ul className="flex flex-col gap-3">
          {users.map((u) => (
            <li key={u.email} aria-label={u.email} className="flex flex-col gap-3 rounded border border-slate-200 p-3">
              <div className="flex flex-wrap items-center gap-2">
                <span className="break-all font-medium">{u.email}</span>
                {u.name && <span className="text-sm text-slate-600">{u.name}</span>}
                <StatusBadge status={u.disabled ? "disabled" : "active"} testId="user-status" small />
                {u.email === me.email && <span className="text-xs text-slate-600">(you)</span>}
              </div>
              <p className="text-sm text-slate-600">
                Last sign-in: {u.lastSignInAt ? <LocalTime at={u.lastSignInAt.toISOString()} /> : "never"} · created{" "}
                <LocalTime at={u.createdAt.toISOString()} /> · {u.hasPassword ? "password set" : "no password (single sign-on only)"}
              </p>
              <p className="text-sm text-slate-600" data-testid="slack-link">
                Slack:{" "}
                {u.slack ? (
                  <>
                    linked to <span className="font-mono">{u.slack.userId}</span>
                    {u.slack.linkedAt && (
                      <>
                        {" "}
                        since <LocalTime at={u.slack.linkedAt.toISOString()} />
                      </>
                    )}
                  </>
                ) : (
                  "not linked"
                )}
              </p>
              {/* Rendered when not linked too (disabled), so the unlink's answer stays on screen. */}
              <ActionForm
                action={unlinkSlackAction}
                submitLabel="Unlink Slack"
                disabled={!u.slack}
                confirm={`Unlink ${u.email}'s Slack account? Their next click in Slack links again by email.`}
              >
                <input type="hidden" name="email" value={u.email} />
              </ActionForm>

              <div>
                <h3 className="mb-1 text-sm font-semibold">Roles</h3>
                {u.roles.length === 0 ? (
                  <p className="text-sm text-slate-600">No roles.</p>
                ) : (
                  <ul className="flex flex-col gap-1" aria-label={`Roles of ${u.email}`}>
                    {u.roles.map((r) => (
                      <li key={`${r.role}:${r.viaGroup ?? ""}`} className="flex flex-wrap items-center gap-2 text-sm" data-testid="role">
                        <span className="rounded bg-slate-100 px-2 py-0.5 font-mono">{r.role}</span>
                        {r.viaGroup ? (
                          <span className="rounded bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-900" data-testid="via-group">
                            via group {r.viaGroup}
                          </span>
                        ) : (
                          <span className="text-xs text-slate-600">
                            granted <LocalTime at={r.grantedAt.toISOString()} /> by {r.grantedBy ?? "unknown"}
                          </span>
                        )}
                        {r.until && (
                          <span className="rounded bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-900">
                            until <LocalTime at={r.until.toISOString()} />
                          </span>
                        )}
                        {r.selfGranted && <span className="rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900">self-granted</span>}
                      </li>
                    ))}
                  </ul>
                )}
              </div>

              {/* Rendered even with no role left, so the last answer stays on screen. */}
              {/* Roles held through a group go with the group (/admin/groups), so only hand-granted ones are offered. */}
              <ActionForm
                action={revokeRoleAction}
                submitLabel="Revoke role"
                disabled={handRoles(u).length === 0}
                confirm={`Revoke the chosen role from ${u.email}? What it allows stops at once, on their next click.`}
              >
                <input type="hidden" name="email" value={u.email} />
                <label className="flex flex-col gap-1 text-sm font-medium">
                  Role to revoke
                  <select
                    name="role"
                    className="rounded border border-slate-300 px-3 py-2 text-base font-normal"
                    disabled={handRoles(u).length === 0}
                  >
                    {handRoles(u).map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                </label>
              </ActionForm>

              <ActionForm action={grantRoleAction} submitLabel="Grant role">
                <input type="hidden" name="email" value={u.email} />
                <TextField label="Role to grant" name="role" required placeholder="reviewer" className="w-full sm:w-48" />
                <TextField
                  label="Until (UTC, optional)"
                  name="until"
                  type="datetime-local"
                  help="Empty: until revoked. Otherwise the role ends by itself at this time."
                  className="w-full sm:w-56"
                />
                <AnywayCheckbox label="Grant anyway" help="Even if no policy uses this role yet" />
              </ActionForm>

              {u.disabled ? (
                <ActionForm action={enableUserAction} submitLabel="Enable user">
                  <input type="hidden" name="email" value={u.email} />
                </ActionForm>
              ) : (
                <ActionForm action={disableUserAction} submitLabel="Disable user" danger confirm={`Disable ${u.email}? Their sessions end at once.`}>
                  <input type="hidden" name="email" value={u.email} />
                </ActionForm>
              )}
            </li>
          ))}
        </ul>
        <Pager
          label="Pages of users"
          page={found.page}
          pages={found.pages}
          href={pageHref}
          previous={`Previous ${USERS_PAGE_SIZE}`}
          next={`Next ${USERS_PAGE_SIZE}`}
        />
      </Section>
    </AdminPage>
  );
}
