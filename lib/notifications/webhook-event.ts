// The notification webhook's events (docs/notifications.md): what an on-call
// tool needs to page someone about a waiting request. Pure. Like every
// notification it names the call and links to it; argument values, redacted
// or not, are never part of it. Its type is the client package's, so the wire
// and what integrators compile against cannot drift apart.
//
// The values a service wrote are the page's text (lib/display: hidden
// characters as visible escapes, look-alike letters between ⟨ ⟩), and a
// request with any finding carries the page's warning: "display-warning" in
// `warnings` and the findings in `display_warning` (a location in the
// arguments named only as "the arguments").
import type { Effects, ReviewNoticeEvent } from "@countersign/client";
import { DISPLAY_WARNING_TITLE, plainValue, withoutArgumentPaths } from "../display/channel-text";
import type { Warnings } from "../display/scan-findings";

export type ReviewEventKind = "needs_review" | "reminder" | "escalated";

const EVENT_TYPE = {
  needs_review: "approval.needs_review",
  reminder: "approval.reminder",
  escalated: "approval.escalated",
} as const;

export type ReviewEventFacts = {
  approvalId: string;
  service: string;
  tool: string;
  effects: string;
  environment: string | null;
  expiresAt: Date;
  reviewUrl: string;
  summary: string | null;
  requiredRoles: string[];
  quorum: number;
  quorumUnreachable: boolean;
  /** A reminder's number (1, 2, …). */
  reminder?: number;
  /** The roles an escalation added to the required roles. */
  escalatedToRoles?: string[];
  /** The request page's warning (requestWarnings, lib/display/request-display.ts). */
  displayWarnings: Warnings;
};

const shown = (s: string, multiline = false) => plainValue(s, { multiline }).text;

export function reviewEvent(kind: ReviewEventKind, f: ReviewEventFacts, now = new Date()): ReviewNoticeEvent {
  const display = withoutArgumentPaths(f.displayWarnings);
  return {
    type: EVENT_TYPE[kind],
    timestamp: now.toISOString(),
    data: {
      approval_id: f.approvalId,
      service: shown(f.service),
      tool: shown(f.tool),
      // validated at ingest as one of the three
      effects: f.effects as Effects,
      environment: f.environment === null ? null : shown(f.environment),
      expires_at: f.expiresAt.toISOString(),
      review_url: f.reviewUrl,
      /** Written by the agent, not checked; stored redacted. */
      agent_summary: f.summary === null ? null : shown(f.summary, true),
      required_roles: f.requiredRoles,
      quorum: f.quorum,
      warnings: [...(f.quorumUnreachable ? ["quorum-unreachable"] : []), ...(display.total > 0 ? ["display-warning"] : [])],
      ...(display.total > 0 ? { display_warning: { title: DISPLAY_WARNING_TITLE, items: display.items, total: display.total } } : {}),
      ...(kind === "reminder" && f.reminder !== undefined ? { reminder: f.reminder } : {}),
      ...(kind === "escalated" ? { escalated_to_roles: f.escalatedToRoles ?? [] } : {}),
    },
  };
}
