// GET /api/v1/approvals/{id}[?wait=N]: the request's state, long-polling up
// to N seconds until it leaves pending. Woken by change notices (this
// instance directly, others through PostgreSQL NOTIFY), with a slow re-read
// as a safety net: no tight polling of the database.
import "server-only";
import { db } from "../db/client";
import { AppError } from "../errors";
import type { AuthenticatedService } from "../services/authenticate-service";
import { waitForChange } from "./changes";
import { approvalStateBody } from "./present";
import { REVIEW_TRAIL_QUERY } from "./review-trail";
import { WAITING_ON_FACTS, waitingOn, waitingOnBody } from "../reviews/waiting-on";

/** Who may still decide it: read once, as the answer goes out (not on every wake of a long-poll). */
async function waitingOnNow(approvalId: string, status: string) {
  if (status !== "pending") return [];
  const facts = await db().approval.findUnique({ where: { id: approvalId }, select: WAITING_ON_FACTS });
  return facts ? waitingOnBody(await waitingOn(facts)) : [];
}

/** Only what the state shows: a long-poll re-reads it on every wake, and the arguments can be 256 KiB. */
const STATE_COLUMNS = {
  id: true,
  status: true,
  runId: true,
  callId: true,
  tool: true,
  argsDigest: true,
  expiresAt: true,
  createdAt: true,
  decidedAt: true,
  decidedBy: true,
  consumedAt: true,
  quorumUnreachable: true,
  revisionMatch: true,
  executionStatus: true,
  resultDigest: true,
  finishedAt: true,
  reportedAt: true,
  reviews: REVIEW_TRAIL_QUERY,
} as const;

export async function getApprovalState(service: AuthenticatedService, approvalId: string, waitSeconds: number, signal?: AbortSignal) {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const a = await db().approval.findFirst({ where: { id: approvalId, serviceId: service.id }, select: STATE_COLUMNS });
    if (!a) throw new AppError("not-found");
    const body = approvalStateBody(a);
    const remaining = deadline - Date.now();
    if (body.status !== "pending" || remaining <= 0 || signal?.aborted) return { ...body, waiting_on: await waitingOnNow(approvalId, body.status) };
    await waitForChange(approvalId, Math.min(remaining, a.expiresAt.getTime() - Date.now() + 50), signal);
  }
}
