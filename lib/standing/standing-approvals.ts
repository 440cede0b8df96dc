// Standing approvals (docs/standing-approvals.md): proposed from a request's
// page, approved by the policy's quorum under the review rules (the proposer
// counts as one), applied at ingest to matching requests, revoked by its
// reviewers or an admin. Every rule is checked here, on the server, against
// current state: roles are read at the moment of each vote.
import "server-only";
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { z } from "zod";
import { db, type Tx } from "../db/client";
import { asDate, placeholders, sqlOf, type Sql } from "../db/sql";
import { inTransaction } from "../db/transaction";
import { appendAuditEvent, appendAuditEvents } from "../audit/append-event";
import type { Actor, AuditInput } from "../audit/events";
import { AppError, issuesOf } from "../errors";
import { newId } from "../ids";
import { can } from "../auth/permissions";
import { loadPolicies } from "../policies/load-policies";
import { matchPolicy, type PolicyRule } from "../policies/match-policy";
import { loadRedactor } from "../redaction-rules/manage-rules";
import { parseHidden, type HiddenEntry } from "../revisions/hidden-values";
import { isRequester, personEligibility, type Eligibility, type RequesterFacts } from "../reviews/eligibility";
import { loadViewer, rolesOf, VIEWER_SELECT, visibleTo, type Viewer } from "../reviews/visibility";
import { parseStringList } from "../string-list";
import { finalizeApproval } from "../approvals/finalize";
import { reasonTextSchema } from "../reviews/record-review";
import { buildPins, parsePins, pinnablePaths, pinRequestSchema, pinsMatch, pinWords, storedPins } from "./pins";

export const proposeStandingSchema = z.object({
  approvalId: z.string().min(1).max(100),
  pins: z.array(pinRequestSchema).min(1, "pin at least one argument value"),
  expiresInSeconds: z.number().int().min(60, "must last at least a minute"),
  maxUses: z.number().int().min(1).max(1_000_000).nullish(),
  reason: reasonTextSchema.min(1, "say why calls like this one may run without asking"),
});
export type ProposeStandingInput = z.input<typeof proposeStandingSchema>;

const digestOf = (v: unknown) => "sha256:" + createHash("sha256").update(canonicalize(v)!).digest("hex");

/**
 * Who may propose, vote on or revoke a standing approval now: the review
 * rules' person part (lib/reviews/eligibility.ts), on the source request's
 * requester and the policy's roles, for an enabled account. Who sees one is
 * visibleTo(), as for requests.
 */
function standingEligibility(viewer: Viewer | null, s: RequesterFacts & { requiredRoles: string }): Eligibility {
  if (!viewer || viewer.disabledAt) return { ok: false, code: "forbidden", message: "your account cannot review" };
  return personEligibility(s, viewer);
}

/** The policy that governs requests like this one now: the request's own, or null if another now matches. */
function currentPolicy(policies: PolicyRule[], a: { policyName: string; tool: string; effects: string }, service: string): PolicyRule | null {
  const p = matchPolicy(policies, { service, tool: a.tool, effects: a.effects as "read" | "write" | "destructive" });
  return p.name === a.policyName ? p : null;
}

const PASSKEY_REFUSAL = (policy: string) =>
  `policy ${policy} requires a passkey for every vote: a standing approval cannot carry one, so none can be created, approved or applied under it`;

async function lockStanding(tx: Tx, id: string) {
  await tx.$executeRaw`UPDATE standing_approvals SET approve_count = approve_count WHERE id = ${id}`;
  return tx.standingApproval.findUnique({ where: { id }, include: { votes: { select: { reviewerId: true } } } });
}

function parseProposal(input: ProposeStandingInput) {
  return parseWith(proposeStandingSchema, input);
}

function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new AppError("invalid-request", `${first?.path.join(".") || "input"}: ${first?.message ?? "invalid"}`, { issues: issuesOf(parsed.error) });
  }
  return parsed.data;
}

/**
 * What the request's page offers for proposing a standing approval to this
 * viewer: the longest expiry the policy allows and the values a pin can
 * name; null when they may not propose one (policy forbids, not theirs).
 */
export async function standingOffer(
  viewer: Viewer | null,
  a: {
    tool: string;
    effects: string;
    policyName: string;
    requiredRoles: string;
    requestedBy: string | null;
    requesterKey: string | null;
    redactedArgs: string;
    redactedDigests: string | null;
    serviceSlug: string;
  },
): Promise<{ maxTtlSeconds: number; paths: string[] } | null> {
  if (!standingEligibility(viewer, a).ok) return null;
  const hidden = parseHidden(a.redactedDigests);
  if (!hidden) return null;
  const policy = currentPolicy(await loadPolicies(db()), a, a.serviceSlug);
  if (!policy || policy.standingMaxTtlSeconds <= 0 || policy.requirePasskey) return null;
  return { maxTtlSeconds: policy.standingMaxTtlSeconds, paths: pinnablePaths(JSON.parse(a.redactedArgs), hidden) };
}

/** How many of the latest requests of this service and tool the proposed pins would have matched (nothing is written). */
export async function previewStanding(reviewerId: string, input: { approvalId: string; pins: unknown }, recent = 200) {
  const { approvalId, pins: pinRequests } = parseWith(proposeStandingSchema.pick({ approvalId: true, pins: true }), input);
  const redactor = await loadRedactor(db());
  const viewer = await loadViewer(reviewerId);
  const a = await db().approval.findUnique({ where: { id: approvalId } });
  if (!a || !visibleTo(viewer, a)) throw new AppError("not-found");
  const verdict = standingEligibility(viewer, a);
  if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
  const hidden = parseHidden(a.redactedDigests);
  if (!hidden) throw new AppError("invalid-request", "this request arrived before standing approvals existed: propose from a newer request");
  const built = buildPins(JSON.parse(a.redactedArgs), hidden, pinRequests, (v) => typeof v !== "string" || redactor.findSecret(v) === null);
  if (!built.ok) throw new AppError("invalid-request", built.message, { issues: [{ path: "pins", message: built.message }] });
  const rows = await db().approval.findMany({
    where: { serviceId: a.serviceId, tool: a.tool, id: { not: a.id } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: recent,
    select: { redactedArgs: true, redactedDigests: true },
  });
  let matched = 0;
  for (const r of rows) {
    const h = parseHidden(r.redactedDigests);
    if (h && pinsMatch(built, JSON.parse(r.redactedArgs), h)) matched++;
  }
  return { matched, of: rows.length, pins: pinWords(built, "this request") };
}

export async function proposeStanding(reviewerId: string, input: ProposeStandingInput) {
  const { approvalId, pins: pinRequests, expiresInSeconds, maxUses, reason } = parseProposal(input);
  const redactor = await loadRedactor(db());
  const policies = await loadPolicies(db());

  const created = await inTransaction(async (tx) => {
    const now = new Date();
    const a = await tx.approval.findUnique({ where: { id: approvalId }, include: { service: { select: { slug: true } } } });
    const viewer = await tx.user.findUnique({
      where: { id: reviewerId },
      select: VIEWER_SELECT,
    });
    if (!a || !visibleTo(viewer, a)) throw new AppError("not-found");
    const verdict = standingEligibility(viewer, a);
    if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
    const policy = currentPolicy(policies, a, a.service.slug);
    if (!policy)
      throw new AppError(
        "invalid-request",
        "the policy for calls like this one has changed since this request arrived: propose from a newer request",
      );
    if (policy.requirePasskey || a.requirePasskey) throw new AppError("forbidden", PASSKEY_REFUSAL(policy.name));
    if (policy.standingMaxTtlSeconds <= 0) throw new AppError("forbidden", `policy ${policy.name} does not allow standing approvals`);
    if (expiresInSeconds > policy.standingMaxTtlSeconds) {
      throw new AppError("invalid-request", `policy ${policy.name} allows standing approvals of at most ${policy.standingMaxTtlSeconds} seconds`);
    }
    const hidden = parseHidden(a.redactedDigests);
    if (!hidden) throw new AppError("invalid-request", "this request arrived before standing approvals existed: propose from a newer request");
    const built = buildPins(JSON.parse(a.redactedArgs), hidden, pinRequests, (v) => typeof v !== "string" || redactor.findSecret(v) === null);
    if (!built.ok) throw new AppError("invalid-request", built.message, { issues: [{ path: "pins", message: built.message }] });

    const email = viewer!.email;
    const active = policy.quorum <= 1;
    const s = await tx.standingApproval.create({
      data: {
        id: newId("sta"),
        serviceId: a.serviceId,
        tool: a.tool,
        pins: storedPins(built),
        reason,
        sourceApprovalId: a.id,
        requestedBy: a.requestedBy,
        requesterKey: a.requesterKey,
        policyName: policy.name,
        requiredRoles: JSON.stringify(policy.roles),
        quorum: policy.quorum,
        proposedById: reviewerId,
        status: active ? "active" : "proposed",
        approveCount: 1,
        approvedBy: JSON.stringify([email]),
        maxUses: maxUses ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + expiresInSeconds * 1000),
        activatedAt: active ? now : null,
      },
    });
    await tx.standingVote.create({ data: { id: newId("stv"), standingId: s.id, reviewerId, reviewerEmail: email, createdAt: now } });
    const actor: Actor = `user:${email}`;
    // Pins hold argument values: the chain keeps their digest and their paths.
    await appendAuditEvent(tx, {
      type: "standing.proposed",
      actor,
      approvalId: a.id,
      data: {
        standing: s.id,
        service: a.service.slug,
        tool: a.tool,
        pins_digest: digestOf(JSON.parse(s.pins)),
        paths: built.pins.map((p) => p.path).slice(0, 50),
        expires_at: s.expiresAt.toISOString(),
        max_uses: s.maxUses,
        quorum: s.quorum,
        reason,
      },
    });
    if (active)
      await appendAuditEvent(tx, {
        type: "standing.approved",
        actor,
        data: { standing: s.id, approvals: 1, quorum: s.quorum, active: true, approved_by: [email] },
      });
    return s;
  });
  return { id: created.id, status: created.status };
}

export async function approveStanding(reviewerId: string, standingId: string) {
  return inTransaction(async (tx) => {
    const now = new Date();
    const s = await lockStanding(tx, standingId);
    const viewer = await tx.user.findUnique({
      where: { id: reviewerId },
      select: VIEWER_SELECT,
    });
    if (!s || !visibleTo(viewer, s)) throw new AppError("not-found");
    if (s.status !== "proposed") throw new AppError("already-decided", `this standing approval is already ${s.status}`);
    if (s.expiresAt <= now) throw new AppError("expired", "this standing approval has expired");
    const verdict = standingEligibility(viewer, s);
    if (!verdict.ok) throw new AppError(verdict.code, verdict.message);
    if (s.votes.some((v) => v.reviewerId === reviewerId)) throw new AppError("already-reviewed", "you have already approved it");
    // The policy may have come to require passkeys since it was proposed.
    const policy = await tx.policy.findUnique({ where: { name: s.policyName }, select: { requirePasskey: true } });
    if (policy?.requirePasskey) throw new AppError("forbidden", PASSKEY_REFUSAL(s.policyName));

    const email = viewer!.email;
    const approvedBy = [...parseStringList(s.approvedBy), email];
    const active = approvedBy.length >= s.quorum;
    await tx.standingVote.create({ data: { id: newId("stv"), standingId, reviewerId, reviewerEmail: email, createdAt: now } });
    await tx.standingApproval.update({
      where: { id: standingId },
      data: { approveCount: approvedBy.length, approvedBy: JSON.stringify(approvedBy), ...(active ? { status: "active", activatedAt: now } : {}) },
    });
    await appendAuditEvent(tx, {
      type: "standing.approved",
      actor: `user:${email}`,
      data: { standing: standingId, approvals: approvedBy.length, quorum: s.quorum, active, ...(active ? { approved_by: approvedBy } : {}) },
    });
    return { id: standingId, status: active ? "active" : "proposed", approvals: approvedBy.length, quorum: s.quorum };
  });
}

/** Revoked by an admin (or the CLI), or by a reviewer who may vote on it; effective for the next request. */
export async function revokeStanding(by: { userId: string } | "cli", standingId: string) {
  return inTransaction(async (tx) => {
    const s = await lockStanding(tx, standingId);
    let actor: Actor = "cli";
    if (by !== "cli") {
      const viewer = await tx.user.findUnique({
        where: { id: by.userId },
        select: VIEWER_SELECT,
      });
      if (!s || !visibleTo(viewer, s)) throw new AppError("not-found");
      const admin = can({ roles: rolesOf(viewer!) }, "admin:policies");
      if (!admin && !standingEligibility(viewer, s).ok) throw new AppError("forbidden", "only its reviewers and admins can revoke it");
      actor = `user:${viewer!.email}`;
    }
    if (!s) throw new AppError("not-found");
    if (s.status === "revoked") throw new AppError("already-decided", "this standing approval is already revoked");
    const now = new Date();
    await tx.standingApproval.update({ where: { id: standingId }, data: { status: "revoked", revokedAt: now, revokedBy: actor } });
    await appendAuditEvent(tx, { type: "standing.revoked", actor, data: { standing: standingId, uses: s.uses } });
    return { id: standingId, status: "revoked" as const, revoked_at: now.toISOString() };
  });
}

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
  const viewer = viewerId === "cli" ? null : await loadViewer(viewerId);
  const rows = await db().standingApproval.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { votes: { select: { reviewerId: true } } },
  });
  const services = new Map((await db().service.findMany({ select: { id: true, slug: true } })).map((s) => [s.id, s.slug]));
  const now = new Date();
  return rows
    .filter((s) => viewerId === "cli" || visibleTo(viewer, s))
    .map((s) => {
      const status = s.status !== "revoked" && s.expiresAt <= now ? "expired" : (s.status as StandingView["status"]);
      const eligible = viewer !== null && standingEligibility(viewer, s).ok;
      const admin = viewer !== null && can({ roles: rolesOf(viewer) }, "admin:policies");
      return {
        id: s.id,
        service: services.get(s.serviceId) ?? "",
        tool: s.tool,
        pins: pinWords(parsePins(s.pins)),
        reason: s.reason,
        status,
        policy: s.policyName,
        quorum: s.quorum,
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

type IngestedRow = {
  id: string;
  serviceId: string;
  tool: string;
  requestedBy: string | null;
  requesterKey: string | null;
  createdAt: Date;
};

/** A standing approval that matches a new request, with what applying it needs. */
export type StandingMatch = { id: string; approvers: string[] };

/**
 * The active standing approvals that match a new request, first created
 * first: read-only, so the ingest reads them before its transaction (and
 * decides from them whether the request needs its reviewers told). Expiry,
 * policy, quorum, uses and pins are checked here; the use itself is counted
 * by useStanding's conditional UPDATE.
 */
export async function matchingStanding(
  tx: Tx | Sql,
  approval: IngestedRow,
  policy: PolicyRule,
  args: { view: unknown; hidden: readonly HiddenEntry[] },
): Promise<StandingMatch[]> {
  // A policy that requires passkeys has every request reviewed with one (docs/passkeys.md): never applied.
  if (policy.standingMaxTtlSeconds <= 0 || policy.requirePasskey) return [];
  const sql = sqlOf(tx);
  const now = approval.createdAt;
  const candidates = await sql.all<{
    id: string;
    expires_at: unknown;
    policy_name: string;
    quorum: number | bigint;
    max_uses: number | bigint | null;
    uses: number | bigint;
    pins: string;
    approved_by: string;
  }>(
    `SELECT id, expires_at, policy_name, quorum, max_uses, uses, pins, approved_by FROM standing_approvals
     WHERE service_id = ? AND tool = ? AND status = 'active' ORDER BY created_at ASC, id ASC`,
    [approval.serviceId, approval.tool],
  );
  const matches: StandingMatch[] = [];
  for (const s of candidates) {
    // Expiry is fixed at creation; a policy made stricter since stops it applying.
    if (asDate(s.expires_at) <= now || s.policy_name !== policy.name || Number(s.quorum) < policy.quorum) continue;
    if (s.max_uses !== null && Number(s.uses) >= Number(s.max_uses)) continue;
    const pins = parsePins(s.pins);
    if (!pins || !pinsMatch(pins, args.view, args.hidden)) continue;
    const approvers = parseStringList(s.approved_by);
    if ((approval.requestedBy !== null || approval.requesterKey !== null) && (await requesterAmong(sql, approval, approvers))) continue;
    matches.push({ id: s.id, approvers });
  }
  return matches;
}

/**
 * In the request's transaction: counts one use of a matching standing
 * approval and decides the request with it, approved by its approvers. The
 * use is counted by one conditional UPDATE, so max_uses holds however many
 * ingests race, on any number of instances (and a revocation or expiry
 * committed since the match wins). False when it was used up or revoked.
 */
async function useStanding(
  tx: Tx | Sql,
  approval: IngestedRow,
  match: StandingMatch,
  serviceSlug: string,
  auditInto?: AuditInput[],
): Promise<boolean> {
  const sql = sqlOf(tx);
  const now = approval.createdAt;
  const [taken] = await sql.all<{ uses: number | bigint }>(
    `UPDATE standing_approvals SET uses = uses + 1, last_used_at = ?
     WHERE id = ? AND status = 'active' AND expires_at > ? AND (max_uses IS NULL OR uses < max_uses)
     RETURNING uses`,
    [now, match.id, now],
  );
  if (!taken) return false;
  await sql.run("UPDATE approvals SET standing_approval_id = ?, approve_count = ? WHERE id = ?", [match.id, match.approvers.length, approval.id]);
  // Its two events go where the caller collects its transaction's events, or are appended now, in order.
  const events = auditInto ?? [];
  events.push({
    type: "standing.applied",
    actor: "system",
    approvalId: approval.id,
    data: { standing: match.id, service: serviceSlug, tool: approval.tool, uses: Number(taken.uses), approved_by: match.approvers },
  });
  const decided = await finalizeApproval(sql, approval.id, "approved", {
    decidedBy: match.approvers,
    decidedAt: now,
    actor: "system",
    auditInto: events,
  });
  if (!decided) throw new Error("a new request left pending state in its own transaction");
  if (!auditInto) await appendAuditEvents(sql, events);
  return true;
}

/** The first of `matches` that can still be used decides the request (useStanding): its id, or null when none could. */
export async function useFirstStanding(
  tx: Tx | Sql,
  approval: IngestedRow,
  matches: readonly StandingMatch[],
  serviceSlug: string,
  auditInto?: AuditInput[],
): Promise<string | null> {
  for (const match of matches) {
    if (await useStanding(tx, approval, match, serviceSlug, auditInto)) return match.id;
  }
  return null;
}

/**
 * Takes these standing approvals' row locks now, in the order useStanding
 * tries them, for a transaction that appends to the audit chain before it
 * may use one (a revision: its carried vote comes first). Every transaction
 * takes standing approvals before the chain's head, never after, so on
 * PostgreSQL two of them never wait on each other; on SQLite the
 * transaction already holds the database's write lock.
 */
export async function lockStandingRows(tx: Tx | Sql, matches: readonly StandingMatch[]): Promise<void> {
  const sql = sqlOf(tx);
  if (matches.length === 0 || sql.dialect !== "postgresql") return;
  await sql.all(
    `SELECT id FROM standing_approvals WHERE id IN (${placeholders(matches.length)}) ORDER BY created_at ASC, id ASC FOR UPDATE`,
    matches.map((m) => m.id),
  );
}

/** Whether the request's requester is one of these approvers (by their email or a linked identity). */
async function requesterAmong(sql: Sql, approval: RequesterFacts, approvers: string[]): Promise<boolean> {
  if (approvers.length === 0) return false;
  const people = await sql.all<{ email: string; identity_email: string | null; subject: string | null }>(
    `SELECT u.email, i.email AS identity_email, i.subject FROM users u LEFT JOIN identities i ON i.user_id = u.id
     WHERE u.email IN (${placeholders(approvers.length)})`,
    approvers,
  );
  const known = new Map<string, { email: string; identities: Array<{ email: string | null; subject: string }> }>();
  for (const p of people) {
    const person = known.get(p.email) ?? { email: p.email, identities: [] };
    if (p.subject !== null) person.identities.push({ email: p.identity_email, subject: p.subject });
    known.set(p.email, person);
  }
  return approvers.some((email) => isRequester(approval, known.get(email) ?? { email, identities: [] }));
}
