"use server";
// Admin actions on group mappings. Each one goes through runAction: origin,
// live session and the admin role, read now, before anything changes.
import { mapGroup, unmapGroup } from "@/lib/groups/group-mappings";
import { ADMIN_WORDING, runAction, type ActionState } from "@/lib/auth/guards";
import { field } from "@/lib/http/form-fields";
import { refusedAsUnreachable } from "../_components/unreachable";

const ADMIN = { name: "admin action", path: "/admin/groups", wording: ADMIN_WORDING };

export async function mapGroupAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    let r: Awaited<ReturnType<typeof mapGroup>>;
    try {
      r = await mapGroup({ group: field(fd, "group"), role: field(fd, "role"), anyway: fd.get("anyway") === "on" }, actor);
    } catch (e) {
      return refusedAsUnreachable(e, "Map anyway");
    }
    const who = r.members === 1 ? "1 member holds it now" : `${r.members} members hold it now`;
    return { ok: true, message: `Mapped ${r.group} to ${r.role}; ${who}.` };
  });
}

export async function unmapGroupAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:users", ADMIN, async ({ actor }) => {
    const r = await unmapGroup({ group: field(fd, "group"), role: field(fd, "role") }, actor);
    const who = r.members === 1 ? "1 member lost it" : `${r.members} members lost it`;
    return { ok: true, message: `Unmapped ${r.group} from ${r.role}; ${who}.` };
  });
}
