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

export async function getApprovalState(service: AuthenticatedService, approvalId: string, waitSeconds: number, signal?: AbortSignal) {
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    const a = await db().approval.findFirst({ where: { id: approvalId, serviceId: service.id }, include: { reviews: REVIEW_TRAIL_QUERY } });
    if (!a) throw new AppError("not-found");
    const body = approvalStateBody(a);
    const remaining = deadline - Date.now();
    if (body.status !== "pending" || remaining <= 0 || signal?.aborted) return body;
    await waitForChange(approvalId, Math.min(remaining, a.expiresAt.getTime() - Date.now() + 50), signal);
  }
}
