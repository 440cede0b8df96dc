// The audit event types of docs/architecture.md An event's data holds ids, digests,
// actors and reason codes: never argument values, secrets or free text from
// agents (a reviewer's reason is the one free text, and it is the reviewer's).
import { z } from "zod";

export const AUDIT_EVENT_TYPES = [
  "approval.requested",
  "review.recorded",
  "approval.decided",
  "approval.expired",
  "approval.cancelled",
  "approval.consumed",
  // The executor reported how the approved call ran: status, result digest, finish time (docs/executions.md).
  "approval.executed",
  // A reviewer answered with changes (docs/revisions.md); the request then ends "revised".
  "revision.proposed",
  // "Approve all" / "Deny all" on a run's page: one event for the batch beside each vote's own.
  "run.reviewed",
  // Standing approvals (docs/standing-approvals.md): proposed, each approval of one, applied to a request,
  // matched but not applied (an approver may no longer decide it, or too few still may), revoked.
  "standing.proposed",
  "standing.approved",
  "standing.applied",
  "standing.skipped",
  "standing.revoked",
  // Nobody decided in time: the policy's escalation roles joined the required roles (lib/notifications/escalate.ts).
  "approval.escalated",
  "consume.refused",
  "webhook.rejected",
  "role.granted",
  "role.revoked",
  // A time-bound role reached its end (role grant --until; lib/users/expire-roles.ts).
  "role.expired",
  // Directory groups (docs/identity.md): a group mapped to a role or unmapped, a group seen first or
  // removed, its members changed (SCIM or a sign-in's claim); the roles this moves are role.granted/revoked
  // events naming the group.
  "group.mapped",
  "group.unmapped",
  "group.created",
  "group.updated",
  "group.deleted",
  "group.members_changed",
  // SCIM provisioning (docs/identity.md): a bearer token created or revoked, a provisioned user changed.
  "scim.token_created",
  "scim.token_revoked",
  "user.updated",
  "policy.changed",
  "service.created",
  "service.secret_rotated",
  "service.disabled",
  "service.updated",
  "user.created",
  "user.disabled",
  "user.enabled",
  // A reviewer away until a time, and back (/settings; lib/users/away.ts).
  "user.away",
  "user.back",
  "user.signed_in",
  "user.sign_in_failed",
  // Rate-limited sign-ins, counted per minute (lib/audit/refusal-tallies.ts).
  "user.sign_in_refused",
  "user.signed_out",
  // A Slack user linked to this user by Slack's verified email, and unlinked by an admin (lib/slack).
  "user.slack_linked",
  "user.slack_unlinked",
  // A reviewer registered or removed a passkey on /settings (docs/passkeys.md).
  "passkey.registered",
  "passkey.removed",
  // Slack interactions whose signature failed, counted per minute (lib/audit/refusal-tallies.ts).
  "slack.interaction_rejected",
  "redaction.changed",
  // Retention (docs/operations.md): a batch of decided requests lost their arguments (RETENTION_DAYS), and
  // the chain's oldest events were archived to a file and pruned (`audit archive`).
  "retention.purged",
  "audit.archived",
  "receipt_key.rotated",
  "callback.retried",
  // One per message a channel accepted, and per message given up on (lib/notifications/).
  "notification.sent",
  "notification.failed",
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

const scalar = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);
export const auditDataSchema = z.record(z.string(), z.union([scalar, z.array(z.string().max(320)).max(50)]));
export type AuditData = z.infer<typeof auditDataSchema>;

/** Who did it: "user:<email>", "service:<slug>", "scim:<token id>", "cli", "system". */
export type Actor = `user:${string}` | `service:${string}` | `scim:${string}` | "cli" | "system";

export type AuditInput = {
  type: AuditEventType;
  actor: Actor;
  approvalId?: string | null;
  data?: AuditData;
};
