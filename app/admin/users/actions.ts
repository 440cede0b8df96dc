"use server";
// Admin actions on users. Each one goes through runAction: origin,
// live session and the admin role, read now, before anything changes.
import { addUser } from "@/lib/users/add-user";
import { grantRole, revokeRole } from "@/lib/users/roles";
import { disableUser, enableUser } from "@/lib/users/disable-user";
import { unlinkSlackUser } from "@/lib/slack/slack-identity";
import { splitRoles } from "@/lib/policies/schemas";
import { ADMIN_WORDING, runAction, type ActionState } from "@/lib/auth/guards";
import { field, optionalField } from "@/lib/http/form-fields";
import { refusedAsUnreachable } from "../_components/unreachable";

/** The forms' labels (page.tsx), so a refusal names the field as the page does. */
const LABELS = { email: "Email", name: "Name", password: "Password", roles: "Roles", role: "Role", until: "Until" };
const ADMIN = { name: "admin action", path: "/admin/users", wording: ADMIN_WORDING, labels: LABELS };

export async function createUserAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    let user: Awaited<ReturnType<typeof addUser>>;
    try {
      user = await addUser(
        {
          email: field(fd, "email"),
          name: optionalField(fd, "name"),
          password: optionalField(fd, "password"),
          roles: splitRoles(field(fd, "roles")),
        },
        actor,
        { anyway: fd.get("anyway") === "on" },
      );
    } catch (e) {
      return refusedAsUnreachable(e, "Create anyway");
    }
    return { ok: true, message: `Created ${user.email}${user.roles.length ? ` with ${user.roles.join(", ")}` : " with no role"}.` };
  });
}

export async function grantRoleAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    let r: Awaited<ReturnType<typeof grantRole>>;
    try {
      r = await grantRole(
        { email: field(fd, "email"), role: field(fd, "role"), until: optionalField(fd, "until"), anyway: fd.get("anyway") === "on" },
        actor,
      );
    } catch (e) {
      return refusedAsUnreachable(e, "Grant anyway");
    }
    const self = actor === `user:${r.email}`;
    const until = r.until ? ` until ${r.until.replace("T", " ").replace(/:\d{2}\.\d{3}Z$/, " UTC")}` : "";
    return { ok: true, message: `Granted ${r.role} to ${r.email}${until}${self ? " (self-grant, recorded as such)" : ""}.` };
  });
}

export async function revokeRoleAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    const r = await revokeRole({ email: field(fd, "email"), role: field(fd, "role") }, actor);
    return { ok: true, message: `Revoked ${r.role} from ${r.email}.` };
  });
}

export async function disableUserAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    const r = await disableUser(field(fd, "email"), actor);
    return { ok: true, message: `Disabled ${r.email}; ${r.sessions_revoked} session(s) ended.` };
  });
}

export async function enableUserAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    const r = await enableUser(field(fd, "email"), actor);
    return { ok: true, message: `Enabled ${r.email}.` };
  });
}

export async function unlinkSlackAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    const r = await unlinkSlackUser(field(fd, "email"), actor);
    return { ok: true, message: `Unlinked Slack user ${r.slackUserId} from ${r.email}.` };
  });
}
