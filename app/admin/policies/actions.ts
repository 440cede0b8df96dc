"use server";
// Admin actions on policies, each through runAction (origin, session,
// admin role read now). With POLICY_FILE set, lib/policies refuses edits.
import { setPolicy, type SetPolicyResult } from "@/lib/policies/set-policy";
import { deletePolicy } from "@/lib/policies/delete-policy";
import { whichPolicy } from "@/lib/policies/which-policy";
import { followUpWords, splitRoles } from "@/lib/policies/schemas";
import { ADMIN_WORDING, runAction, type ActionState } from "@/lib/auth/guards";
import { field, optionalField } from "@/lib/http/form-fields";
import { humanSeconds } from "@/lib/format/time";
import { refusedAsUnreachable } from "../_components/unreachable";

/** The form's labels (page.tsx), so a refusal names the field as the page does. */
const LABELS = {
  name: "Name",
  tool: "Tool pattern",
  service: "Service",
  effects: "Effects",
  roles: "Roles",
  quorum: "Quorum",
  ttl: "TTL (seconds)",
  priority: "Priority",
  remind_at: "Remind at",
  escalate_after: "Escalate after (seconds)",
  escalate_to_roles: "Escalate to",
  slack_channel: "Slack channel",
  standing_max_ttl: "Standing approvals up to",
  require_passkey: "Require a passkey",
  min_review_seconds: "Least review time",
  require_full_view: "Require a full view of the arguments",
};
const ADMIN = { name: "admin action", path: "/admin/policies", wording: ADMIN_WORDING, labels: LABELS };

export async function savePolicyAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:policies", ADMIN, async ({ actor }) => {
    const effects = field(fd, "effects");
    let saved: SetPolicyResult;
    try {
      saved = await setPolicy(
        {
          name: field(fd, "name"),
          tool: field(fd, "tool"),
          service: optionalField(fd, "service"),
          effects: effects === "any" ? undefined : optionalField(fd, "effects"),
          roles: splitRoles(field(fd, "roles")),
          quorum: field(fd, "quorum"),
          ttl: field(fd, "ttl"),
          priority: optionalField(fd, "priority"),
          remind_at: optionalField(fd, "remind_at"),
          escalate_after: optionalField(fd, "escalate_after"),
          escalate_to_roles: optionalField(fd, "escalate_to_roles"),
          slack_channel: optionalField(fd, "slack_channel"),
          standing_max_ttl: optionalField(fd, "standing_max_ttl"),
          require_passkey: fd.get("require_passkey") === "on",
          min_review_seconds: optionalField(fd, "min_review_seconds"),
          require_full_view: fd.get("require_full_view") === "on",
        },
        actor,
        { anyway: fd.get("anyway") === "on" },
      );
    } catch (e) {
      return refusedAsUnreachable(e, "Save anyway");
    }
    const { change, policy, notes, overridden } = saved;
    return {
      ok: true,
      message: `Policy ${policy.name} ${change}. It applies to new requests; pending ones keep their policy.`,
      detail: [...overridden.map((p) => `Saved anyway: ${p.message}`), ...notes],
    };
  });
}

export async function deletePolicyAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:policies", ADMIN, async ({ actor }) => {
    const r = await deletePolicy(field(fd, "name"), actor);
    return { ok: true, message: `Policy ${r.name} deleted.` };
  });
}

export async function testPolicyAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("admin:policies", ADMIN, async () => {
    const { question, policy, alsoMatching } = await whichPolicy({
      service: field(fd, "service"),
      tool: field(fd, "tool"),
      effects: optionalField(fd, "effects"),
    });
    const detail = [`Needs ${policy.quorum} approval(s) from: ${policy.roles.join(", ")}`, `Lives at most ${humanSeconds(policy.ttlSeconds)}`];
    const followUps = followUpWords(policy);
    if (followUps) detail.push(followUps[0]!.toUpperCase() + followUps.slice(1));
    if (alsoMatching.length) detail.push(`Also matching, less specific: ${alsoMatching.join(", ")}`);
    return {
      ok: true,
      message: `${question.service} / ${question.tool} (${question.effects}) → policy ${policy.name}${policy.isDefault ? " (the default: nothing else matches)" : ""}`,
      detail,
    };
  });
}
