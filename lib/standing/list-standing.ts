// The standing approvals a viewer may see, and whether they may approve or
// revoke each now (the person part of the one check, under the policy as it
// is now).
import "server-only";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { can } from "../auth/permissions";
import { loadPolicies } from "../policies/load-policies";
import { loadPerson } from "../reviews/people";
import { rolesOf, visibleTo } from "../reviews/visibility";
import { parseStringList } from "../string-list";
import { parsePins, pinWords } from "./pins";
import { isItsReviewer, SOURCE_SELECT, standingRules } from "./standing-rules";

export type StandingView = {
  id: string;
  service: string;
  tool: string;
  pins: string[];
  reason: string;
  status: "proposed" | "active" | "revoked" | "expired";
  policy: string;
  quorum: number;
  approvedBy: string[];
  uses: number;
  maxUses: number | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
  sourceApprovalId: string;
  /** The viewer may approve it now / revoke it. */
  canApprove: boolean;
  canRevoke: boolean;
};

/** The standing approvals a viewer may see (all of them for the CLI), newest first. */
export async function listStanding(viewerId: string | "cli", limit = 200): Promise<StandingView[]> {
  const viewer = viewerId === "cli" ? null : await loadPerson(direct(), viewerId);
  const rows = await db().standingApproval.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { votes: { select: { reviewerId: true } } },
  });
  const services = new Map((await db().service.findMany({ select: { id: true, slug: true } })).map((s) => [s.id, s.slug]));
  const visible = rows.filter((s) => viewerId === "cli" || visibleTo(viewer, s));
  // Who may still approve or revoke: the check's person part under the policy as it is now.
  const policies = await loadPolicies(direct());
  const sources = new Map(
    viewer
      ? (await db().approval.findMany({ where: { id: { in: visible.map((s) => s.sourceApprovalId) } }, select: SOURCE_SELECT })).map((a) => [a.id, a])
      : [],
  );
  const now = new Date();
  return visible.map((s) => {
    const status = s.status !== "revoked" && s.expiresAt <= now ? "expired" : (s.status as StandingView["status"]);
    const source = sources.get(s.sourceApprovalId);
    const rules = source ? standingRules(policies, source, s.quorum) : null;
    const eligible = viewer !== null && isItsReviewer(viewer, s, rules, now);
    const admin = viewer !== null && can({ roles: rolesOf(viewer, now) }, "admin:policies");
    return {
      id: s.id,
      service: services.get(s.serviceId) ?? "",
      tool: s.tool,
      pins: pinWords(parsePins(s.pins)),
      reason: s.reason,
      status,
      policy: s.policyName,
      quorum: rules?.quorum ?? s.quorum,
      approvedBy: parseStringList(s.approvedBy),
      uses: s.uses,
      maxUses: s.maxUses,
      lastUsedAt: s.lastUsedAt,
      createdAt: s.createdAt,
      expiresAt: s.expiresAt,
      sourceApprovalId: s.sourceApprovalId,
      canApprove: status === "proposed" && eligible && !s.votes.some((v) => v.reviewerId === viewerId),
      canRevoke: (status === "proposed" || status === "active") && (eligible || admin),
    };
  });
}

/** The standing approvals waiting for this viewer's approval now (the queue's note; canApprove above, the one check). */
export async function countStandingToApprove(viewerId: string): Promise<number> {
  return (await listStanding(viewerId)).filter((s) => s.canApprove).length;
}

/** The page's groups, in order: what waits for the viewer, other proposals, what is in force, what ended. */
export const STANDING_GROUPS = ["yours", "proposed", "active", "ended"] as const;
export type StandingGroup = (typeof STANDING_GROUPS)[number];

export function standingGroup(s: Pick<StandingView, "status" | "canApprove">): StandingGroup {
  if (s.status === "proposed") return s.canApprove ? "yours" : "proposed";
  return s.status === "active" ? "active" : "ended";
}
