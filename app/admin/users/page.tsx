import type { Metadata } from "next";
import { requirePermissionPage } from "@/lib/auth/guards";
import { listUsers } from "@/lib/users/list-users";
import { ActionForm } from "../_components/action-form";
import { StatusBadge } from "@/components/status-badge";
import { LocalTime } from "@/components/time";
import { AdminPage, Section, TextField } from "../_components/admin-page";
import { createUserAction, disableUserAction, enableUserAction, grantRoleAction, revokeRoleAction, unlinkSlackAction } from "./actions";

export const metadata: Metadata = { title: "Users" };
export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const me = await requirePermissionPage("admin:users");
  const users = await listUsers();

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
        </ActionForm>
      </Section>

      <Section title={`All users (${users.length})`} id="users-h">
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
                      <li key={r.role} className="flex flex-wrap items-center gap-2 text-sm" data-testid="role">
                        <span className="rounded bg-slate-100 px-2 py-0.5 font-mono">{r.role}</span>
                        <span className="text-xs text-slate-600">
                          granted <LocalTime at={r.grantedAt.toISOString()} /> by {r.grantedBy ?? "unknown"}
                        </span>
                        {r.selfGranted && <span className="rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900">self-granted</span>}
                      </li>
                    ))}
                  </ul>
                )}
              </div>

              {/* Rendered even with no role left, so the last answer stays on screen. */}
              <ActionForm action={revokeRoleAction} submitLabel="Revoke role" disabled={u.roles.length === 0}>
                <input type="hidden" name="email" value={u.email} />
                <label className="flex flex-col gap-1 text-sm font-medium">
                  Role to revoke
                  <select name="role" className="rounded border border-slate-300 px-3 py-2 text-base font-normal" disabled={u.roles.length === 0}>
                    {u.roles.map((r) => (
                      <option key={r.role} value={r.role}>
                        {r.role}
                      </option>
                    ))}
                  </select>
                </label>
              </ActionForm>

              <ActionForm action={grantRoleAction} submitLabel="Grant role">
                <input type="hidden" name="email" value={u.email} />
                <TextField label="Role to grant" name="role" required placeholder="reviewer" className="w-full sm:w-48" />
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
      </Section>
    </AdminPage>
  );
}
