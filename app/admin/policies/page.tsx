import type { Metadata } from "next";
import { requirePermissionPage } from "@/lib/auth/guards";
import { listPolicies } from "@/lib/policies/list-policies";
import { policyFileInUse } from "@/lib/policies/policy-source";
import type { PolicyView } from "@/lib/policies/policy-rows";
import { DEFAULT_PRIORITY, followUpWords, MAX_REMINDERS, MAX_TTL_SECONDS, MIN_TTL_SECONDS } from "@/lib/policies/schemas";
import { ActionForm } from "../_components/action-form";
import { LocalTime } from "@/components/time";
import { humanSeconds } from "@/lib/format/time";
import { AdminPage, AnywayCheckbox, Section, TextField } from "../_components/admin-page";
import { policyReachability, readRoleFacts, type Reachability } from "@/lib/policies/reachability";
import { deletePolicyAction, savePolicyAction, testPolicyAction } from "./actions";

export const metadata: Metadata = { title: "Policies" };
export const dynamic = "force-dynamic";

function EffectsSelect({ name, defaultValue, withAny }: { name: string; defaultValue: string; withAny: boolean }) {
  return (
    <label className="flex flex-col gap-1 text-sm font-medium">
      Effects
      <select name={name} defaultValue={defaultValue} className="rounded border border-slate-300 px-3 py-2 text-base font-normal">
        {withAny && <option value="any">any</option>}
        <option value="read">read</option>
        <option value="write">write</option>
        <option value="destructive">destructive</option>
      </select>
    </label>
  );
}

/** The fields of a policy; an existing policy keeps its name, the default its match-all shape. */
function PolicyFields({ p }: { p?: PolicyView }) {
  const isDefault = p?.isDefault ?? false;
  return (
    <>
      {p ? (
        <input type="hidden" name="name" value={p.name} />
      ) : (
        <TextField label="Name" name="name" required className="w-full sm:w-48" placeholder="payments-large" />
      )}
      {isDefault ? (
        <input type="hidden" name="tool" value="*" />
      ) : (
        <>
          <TextField label="Tool pattern" name="tool" required defaultValue={p?.tool} placeholder="payments.*" className="w-full sm:w-48" />
          <TextField label="Service" name="service" defaultValue={p?.service ?? ""} placeholder="any" className="w-full sm:w-40" />
          <EffectsSelect name="effects" defaultValue={p?.effects ?? "any"} withAny />
        </>
      )}
      <TextField label="Roles" name="roles" required defaultValue={p?.roles.join(", ")} placeholder="reviewer, payments" className="w-full sm:w-48" />
      <TextField label="Quorum" name="quorum" type="number" required defaultValue={p?.quorum ?? 1} className="w-24" />
      <TextField
        label="TTL (seconds)"
        name="ttl"
        type="number"
        required
        defaultValue={p?.ttl ?? 3600}
        className="w-36"
        help={`${humanSeconds(MIN_TTL_SECONDS)} to ${humanSeconds(MAX_TTL_SECONDS)}; 3600 is 1 h`}
      />
      {!isDefault && (
        <TextField
          label="Priority"
          name="priority"
          type="number"
          defaultValue={p?.priority ?? DEFAULT_PRIORITY}
          className="w-28"
          help="Lower wins a tie"
        />
      )}
      <TextField
        label="Remind at"
        name="remind_at"
        defaultValue={p?.remind_at.join(", ")}
        placeholder="0.5, 0.9"
        className="w-full sm:w-36"
        help={`Fractions of the TTL, up to ${MAX_REMINDERS}`}
      />
      <TextField
        label="Escalate after (seconds)"
        name="escalate_after"
        type="number"
        defaultValue={p?.escalate_after ?? ""}
        placeholder="none"
        className="w-44"
        help="Less than the TTL"
      />
      <TextField
        label="Escalate to"
        name="escalate_to_roles"
        defaultValue={p?.escalate_to_roles.join(", ")}
        placeholder="oncall"
        className="w-full sm:w-40"
        help="Who may also decide once it escalates"
      />
      <TextField
        label="Slack channel"
        name="slack_channel"
        defaultValue={p?.slack_channel ?? ""}
        placeholder="#approvals"
        className="w-full sm:w-44"
        help="A channel id (C0123…) or #channel: every request goes there"
      />
      <TextField
        label="Standing approvals up to"
        name="standing_max_ttl"
        type="number"
        defaultValue={p?.standing_max_ttl ? String(p.standing_max_ttl) : ""}
        placeholder="0: none"
        className="w-44"
        help="Seconds a standing approval may live; empty or 0 forbids them"
      />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="require_passkey" defaultChecked={p?.require_passkey ?? false} className="h-5 w-5 rounded border-slate-300" />
        <span>
          <span className="font-medium">Require a passkey</span>
          <span className="block text-xs text-slate-600">
            Every vote is signed with the reviewer&apos;s passkey; no Slack, batch or standing approvals
          </span>
        </span>
      </label>
      <TextField
        label="Least review time"
        name="min_review_seconds"
        type="number"
        defaultValue={p?.min_review_seconds ? String(p.min_review_seconds) : ""}
        placeholder="0: off"
        className="w-44"
        help="Seconds a reviewer must have had the request's page before voting (at most 3600); no Slack or batch votes"
      />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="require_full_view" defaultChecked={p?.require_full_view ?? false} className="h-5 w-5 rounded border-slate-300" />
        <span>
          <span className="font-medium">Require a full view of the arguments</span>
          <span className="block text-xs text-slate-600">
            When the page shows only part of the arguments, a vote waits until the reviewer opened Raw JSON; no Slack or batch votes
          </span>
        </span>
      </label>
      <AnywayCheckbox
        label="Save anyway"
        help="Even if nobody could satisfy it now (an unknown role, too few reviewers): you will grant the role later"
      />
    </>
  );
}

function describe(p: PolicyView): string {
  return [
    p.isDefault ? "every request no other policy matches" : `tool ${p.tool}`,
    p.isDefault ? null : `service ${p.service ?? "any"}`,
    p.isDefault ? null : `effects ${p.effects ?? "any"}`,
  ]
    .filter(Boolean)
    .join(" · ");
}

function followUp(p: PolicyView): string {
  const words = [
    followUpWords({ remindAt: p.remind_at, escalateAfterSeconds: p.escalate_after, escalateToRoles: p.escalate_to_roles }),
    p.slack_channel ? `posted to Slack ${p.slack_channel}` : "",
    p.standing_max_ttl ? `standing approvals up to ${humanSeconds(p.standing_max_ttl)}` : "",
    p.require_passkey ? "votes need a passkey" : "",
    p.min_review_seconds ? `votes at least ${humanSeconds(p.min_review_seconds)} after the page was served` : "",
    p.require_full_view ? "votes need the arguments seen in full" : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return words ? words[0]!.toUpperCase() + words.slice(1) : "";
}

/** Why nobody could satisfy a policy now, and what is worth knowing though somebody can. */
function ReachabilityNotes({ r }: { r: Reachability }) {
  if (r.problems.length === 0 && r.notes.length === 0) return null;
  return (
    <ul data-testid="policy-reachability" className="flex list-disc flex-col gap-1 pl-5 text-sm">
      {r.problems.map((p) => (
        <li key={p.message} className="text-red-800">
          {p.message}
        </li>
      ))}
      {r.notes.map((n) => (
        <li key={n} className="text-amber-900">
          {n}
        </li>
      ))}
    </ul>
  );
}

export default async function PoliciesPage() {
  const me = await requirePermissionPage("admin:policies");
  const [policies, facts, file] = [await listPolicies(), await readRoleFacts(), policyFileInUse()];
  const reach = new Map<string, Reachability>(policies.map((p) => [p.name, policyReachability(p, facts)]));
  const unreachable = policies.filter((p) => reach.get(p.name)!.problems.length > 0);

  return (
    <AdminPage user={me} title="Policies">
      {file && (
        <p role="note" data-testid="policy-file-banner" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm">
          Read-only: policies are loaded from the policy file <code className="break-all">{file}</code> at start-up. Edit that file and restart
          Countersign to change them.
        </p>
      )}
      {unreachable.length > 0 && (
        <p role="note" data-testid="unreachable-banner" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {unreachable.length === 1 ? "1 policy" : `${unreachable.length} policies`} nobody could satisfy now:{" "}
          {unreachable.map((p) => p.name).join(", ")}. Their requests would wait unseen until they expire; each says why below.
        </p>
      )}
      <p className="text-sm text-slate-700">
        The most specific matching policy wins (exact tool, then a named service, then the longer pattern, then named effects), then the lower
        priority. Changes apply to requests that arrive afterwards; pending requests keep the policy they got.
      </p>

      <Section title="Which policy matches?" id="tester-h">
        <ActionForm action={testPolicyAction} submitLabel="Find policy" keepValues>
          <TextField label="Service" name="service" required placeholder="billing-agent" className="w-full sm:w-40" />
          <TextField label="Tool" name="tool" required placeholder="payments.pay" className="w-full sm:w-48" />
          <EffectsSelect name="effects" defaultValue="write" withAny={false} />
        </ActionForm>
      </Section>

      {!file && (
        <Section title="Create or replace a policy" id="create-policy-h">
          <ActionForm action={savePolicyAction} submitLabel="Save policy">
            <PolicyFields />
          </ActionForm>
        </Section>
      )}

      <Section title={`Policies (${policies.length})`} id="policies-h">
        <ul className="flex flex-col gap-3">
          {policies.map((p) => (
            <li key={p.name} aria-label={`Policy ${p.name}`} className="flex flex-col gap-2 rounded border border-slate-200 p-3">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-mono font-medium">{p.name}</span>
                {p.isDefault && <span className="rounded bg-slate-200 px-2 py-0.5 text-xs">default</span>}
                {reach.get(p.name)!.problems.length > 0 && (
                  <span className="rounded bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900">unreachable</span>
                )}
              </div>
              <ReachabilityNotes r={reach.get(p.name)!} />
              <p className="text-sm">{describe(p)}</p>
              <p className="text-sm" data-testid="policy-rule">
                {p.quorum} approval{p.quorum > 1 ? "s" : ""} from {p.roles.join(", ")} · TTL {humanSeconds(p.ttl)}
                {p.isDefault ? "" : ` · priority ${p.priority}`}
              </p>
              {followUp(p) && (
                <p className="text-sm" data-testid="policy-follow-up">
                  {followUp(p)}
                </p>
              )}
              <p className="text-xs text-slate-500">
                Updated <LocalTime at={p.updatedAt.toISOString()} />
              </p>
              {!file && (
                <div className="flex flex-col gap-2">
                  <details>
                    <summary className="cursor-pointer text-sm text-blue-700">Edit {p.name}</summary>
                    <ActionForm action={savePolicyAction} submitLabel="Save changes" className="mt-2">
                      <PolicyFields p={p} />
                    </ActionForm>
                  </details>
                  {!p.isDefault && (
                    <ActionForm action={deletePolicyAction} submitLabel="Delete policy" danger confirm={`Delete policy ${p.name}?`}>
                      <input type="hidden" name="name" value={p.name} />
                    </ActionForm>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      </Section>
    </AdminPage>
  );
}
