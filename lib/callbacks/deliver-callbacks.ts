// The delivery half of docs/api.md. Each instance runs this worker; each
// delivery is claimed on its own with a lease (lib/outbox/lease.ts: only one
// instance's claim passes), sent once per claim, and every attempt is
// recorded. Failures back off exponentially with jitter for over 24 hours.
import "server-only";
import { contextFrom, traceHeaders, withSpan } from "../tracing/tracing";
import { db } from "../db/client";
import { direct } from "../db/sql";
import { env } from "../env";
import { newId } from "../ids";
import { errorFields, log } from "../log";
import { callbackSecretsOf } from "../services/service-secrets";
import { claim, dueIds, givenUp, release, WORKER_ID } from "../outbox/lease";
import { isShuttingDown } from "../shutdown";
import { postSignedWebhook, type SignedPostResult } from "./signed-post";

const BATCH = 10;

/** Delay before attempt n+1 (n ≥ 1 attempts made): base, 2×base, 4×base … capped at 1 h, ±20 %. */
export function backoffMs(attempts: number, baseMs = env().CALLBACK_RETRY_BASE_MS, random = Math.random): number {
  const base = Math.min(baseMs * 2 ** (attempts - 1), 3_600_000);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Claims and attempts due deliveries; returns how many attempts were made. */
export async function deliverDueCallbacks(now = new Date()): Promise<number> {
  const due = await dueIds(direct(), "callback_deliveries", now, BATCH);
  let attempted = 0;
  for (const id of due) {
    if (isShuttingDown()) break;
    // One at a time, each under its own lease: one attempt always fits in it.
    if ((await claim(direct(), "callback_deliveries", [id], WORKER_ID)) === 0) continue; // another instance has it
    attempted++;
    await attemptDelivery(id);
  }
  return attempted;
}

async function attemptDelivery(id: string): Promise<void> {
  const d = await db().callbackDelivery.findUniqueOrThrow({
    where: { id },
    include: { service: { select: { callbackUrl: true } } },
  });
  const started = Date.now();
  let result: SignedPostResult;
  try {
    const url = d.service.callbackUrl;
    result = url
      ? await withSpan(
          "callback deliver",
          { "countersign.callback.type": d.type, "countersign.approval_id": d.approvalId },
          // The header carries this span, a child of the decision's: the executor's trace goes on.
          async () => postSignedWebhook(url, d.payload, d.messageId, await callbackSecretsOf(db(), d.serviceId), traceHeaders()),
          contextFrom(d.traceparent),
        )
      : { ok: false, statusCode: null, errorClass: "invalid-url" };
  } catch (e) {
    log.error("callback attempt failed unexpectedly", { delivery: id, ...errorFields(e) });
    result = { ok: false, statusCode: null, errorClass: "internal" };
  }
  const at = new Date();
  const attempts = d.attempts + 1;
  const gaveUp = !result.ok && givenUp(d.createdAt, at);
  await db().$transaction([
    db().callbackAttempt.create({
      data: {
        id: newId("att"),
        deliveryId: id,
        at,
        statusCode: result.statusCode,
        errorClass: result.errorClass,
        durationMs: at.getTime() - started,
      },
    }),
    db().callbackDelivery.updateMany({
      where: { id, leaseOwner: WORKER_ID },
      data: result.ok
        ? { status: "delivered", deliveredAt: at, attempts, leaseOwner: null, leaseUntil: null }
        : {
            status: gaveUp ? "failed" : "pending",
            attempts,
            nextAttemptAt: new Date(at.getTime() + backoffMs(attempts)),
            leaseOwner: null,
            leaseUntil: null,
          },
    }),
  ]);
  log.info("callback attempt", { delivery: id, ok: result.ok, statusCode: result.statusCode, errorClass: result.errorClass, attempts });
}

/** Admin "retry now": due immediately, even after giving up. */
export async function retryDeliveryNow(id: string): Promise<boolean> {
  const { count } = await db().callbackDelivery.updateMany({
    where: { id, status: { in: ["pending", "failed"] } },
    data: { status: "pending", nextAttemptAt: new Date() },
  });
  return count === 1;
}

/** On shutdown: hand this instance's leases back so another can deliver at once. */
export async function releaseLeases(): Promise<void> {
  await release(direct(), "callback_deliveries", WORKER_ID);
}
