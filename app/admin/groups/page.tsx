import type { Metadata } from "next";
import { requirePermissionPage } from "@/lib/auth/guards";
import { listGroups } from "@/lib/groups/group-mappings";
import { ActionForm } from "../_components/action-form";
import { AdminPage, AnywayCheckbox, Section, TextField } from "../_components/admin-page";
import { mapGroupAction, unmapGroupAction } from "./actions";

export const metadata: Metadata = { title: "Groups" };
export const dynamic = "force-dynamic";

const adminMapped = (g: { roles: Array<{ role: string; source: string }> }) => g.roles.filter((r) => r.source === "admin").map((r) => r.role);

const SOURCE_LABEL: Record<string, string> = { oidc: "from sign-ins", scim: "from SCIM" };

export default async function GroupsPage() {
  const me = await requirePermissionPage("admin:users");
  const groups = await listGroups();

  return (
    <AdminPage user={me} title="Groups">
      <p className="text-sm text-slate-600">
        Directory groups arrive in each sign-in&apos;s groups claim and from SCIM. Members of a mapped group hold its roles for as long as they are
        members; a role granted by hand on the Users page stays until revoked.
      </p>
      <Section title="Map a group to a role" id="map-group-h">
        <ActionForm action={mapGroupAction} submitLabel="Map group">
          <TextField
            label="Group"
            name="group"
            required
            placeholder="payments-approvers"
            className="w-full sm:w-64"
            help="Exactly as the directory names it."
          />
          <TextField label="Role" name="role" required placeholder="payments" className="w-full sm:w-48" />
          <AnywayCheckbox label="Map anyway" help="Even if no policy uses it yet" />
        </ActionForm>
      </Section>

      <Section title={`Groups (${groups.length})`} id="groups-h">
        {groups.length === 0 ? (
          <p className="text-sm text-slate-600">No group seen or mapped yet. Groups appear here after a sign-in or a SCIM push names them.</p>
        ) : (
          <ul className="flex flex-col gap-3">
            {groups.map((g) => (
              <li key={g.name} aria-label={g.name} className="flex flex-col gap-2 rounded border border-slate-200 p-3">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="break-all font-medium">{g.name}</span>
                  <span className="text-sm text-slate-600" data-testid="group-members">
                    {g.id === null
                      ? "not seen yet"
                      : `${g.members} ${g.members === 1 ? "member" : "members"}, ${SOURCE_LABEL[g.source ?? ""] ?? g.source}`}
                  </span>
                </div>
                {g.roles.length === 0 ? (
                  <p className="text-sm text-slate-600">Maps to no role.</p>
                ) : (
                  <ul className="flex flex-wrap gap-2" aria-label={`Roles of ${g.name}`}>
                    {g.roles.map((r) => (
                      <li key={r.role} className="flex flex-wrap items-center gap-2 text-sm" data-testid="group-role">
                        <span className="rounded bg-slate-100 px-2 py-0.5 font-mono">{r.role}</span>
                        {r.source === "policy-file" && <span className="text-xs text-slate-600">from the policy file</span>}
                      </li>
                    ))}
                  </ul>
                )}
                {/* Rendered with nothing left to unmap too, so the last answer stays on screen. Policy-file mappings change with the file. */}
                <ActionForm
                  action={unmapGroupAction}
                  submitLabel="Unmap role"
                  danger
                  disabled={adminMapped(g).length === 0}
                  confirm={`Unmap a role from ${g.name}? Its members lose it at once unless they hold it otherwise.`}
                >
                  <input type="hidden" name="group" value={g.name} />
                  <label className="flex flex-col gap-1 text-sm font-medium">
                    Role to unmap
                    <select
                      name="role"
                      className="rounded border border-slate-300 px-3 py-2 text-base font-normal"
                      disabled={adminMapped(g).length === 0}
                    >
                      {adminMapped(g).map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  </label>
                </ActionForm>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </AdminPage>
  );
}
