// The browsers a user turned Web Push on in (/settings). A subscription is
// what the browser's PushManager gives: the push service's endpoint and the
// keys to encrypt for it. Each endpoint belongs to one user: a browser that
// subscribes again after someone else signed in there moves to the new user,
// so a shared browser never shows the previous person's requests.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { AppError } from "../errors";
import { newId } from "../ids";
import { pushEndpointProblemOnSave, pushTargetPolicy } from "./push-target";
import { pushChannel } from "./web-push";

/** Oldest removed beyond this: enough for every device a person uses, not a flood of endpoints. */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;

const base64Url = /^[A-Za-z0-9_-]+={0,2}$/;
const decoded = (v: string) => Buffer.from(v.replace(/=+$/, ""), "base64url");

/**
 * PushSubscription.toJSON() as the browser sends it. The endpoint is a URL
 * the server will POST to: it must pass the push-target rule (push-target.ts,
 * docs/security.md), its host looked up as for a callback, so the check is
 * asynchronous (parse with parseAsync).
 */
const pushSubscriptionSchema = z.object({
  endpoint: z
    .string()
    .max(2048, "is too long")
    .superRefine(async (v, ctx) => {
      const problem = await pushEndpointProblemOnSave(v, pushTargetPolicy());
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    p256dh: z
      .string()
      .regex(base64Url, "must be base64url")
      .refine((v) => {
        const b = decoded(v);
        return b.length === 65 && b[0] === 4;
      }, "must be an uncompressed P-256 public key (65 bytes)"),
    auth: z
      .string()
      .regex(base64Url, "must be base64url")
      .refine((v) => decoded(v).length === 16, "must be 16 bytes"),
  }),
});

export type PushSubscriptionInput = z.input<typeof pushSubscriptionSchema>;

export type SavedSubscription = { id: string; userAgent: string | null; createdAt: Date; lastUsedAt: Date | null };

const userAgentSchema = z
  .string()
  .optional()
  .nullable()
  .transform((v) => (v ? v.replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, 300) : null));

/**
 * Saves the browser's subscription for the user (upsert by endpoint); over
 * the cap, the user's oldest go. Without VAPID keys nothing could ever be
 * sent to it, so it is refused rather than kept. A refused input is a
 * ZodError naming the field (invalid-request, 422); nothing is stored.
 */
export async function savePushSubscription(userId: string, input: unknown, userAgent?: string | null): Promise<SavedSubscription> {
  if (pushChannel() === "off") throw new AppError("unavailable", "Web Push is not set up on this server (no VAPID keys).");
  const sub = await pushSubscriptionSchema.parseAsync(input);
  const ua = userAgentSchema.parse(userAgent);
  // Keys are stored without padding: the form web-push and the browser use.
  const keys = { p256dh: sub.keys.p256dh.replace(/=+$/, ""), auth: sub.keys.auth.replace(/=+$/, "") };
  return inTransaction(async (tx) => {
    const existing = await tx.pushSubscription.findUnique({ where: { endpoint: sub.endpoint }, select: { id: true, userId: true } });
    const saved = existing
      ? await tx.pushSubscription.update({
          where: { id: existing.id },
          // Moving to another user starts it afresh ("since" is when this user turned it on).
          data: { userId, ...keys, userAgent: ua, ...(existing.userId !== userId ? { createdAt: new Date(), lastUsedAt: null } : {}) },
        })
      : await tx.pushSubscription.create({ data: { id: newId("psb"), userId, endpoint: sub.endpoint, ...keys, userAgent: ua } });
    const all = await tx.pushSubscription.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
    const over = all.filter((s) => s.id !== saved.id).slice(MAX_SUBSCRIPTIONS_PER_USER - 1);
    if (over.length) await tx.pushSubscription.deleteMany({ where: { id: { in: over.map((s) => s.id) } } });
    return { id: saved.id, userAgent: saved.userAgent, createdAt: saved.createdAt, lastUsedAt: saved.lastUsedAt };
  });
}

const idSchema = z.string().regex(/^psb_[a-z2-7]{26}$/, "is not a subscription id");

/** Removes one of the user's own subscriptions; someone else's, or one already gone, is "not-found". */
export async function removePushSubscription(userId: string, id: unknown): Promise<void> {
  const subscriptionId = idSchema.parse(id);
  const { count } = await db().pushSubscription.deleteMany({ where: { id: subscriptionId, userId } });
  if (count === 0) throw new AppError("not-found", "That browser is not subscribed (any more).");
}

/** Removes the user's subscription for this endpoint, if it is theirs ("Turn off in this browser"). */
export async function removePushSubscriptionByEndpoint(userId: string, endpoint: unknown): Promise<boolean> {
  const e = z.string().min(1).max(2048).parse(endpoint);
  const { count } = await db().pushSubscription.deleteMany({ where: { endpoint: e, userId } });
  return count > 0;
}

/** The user's subscribed browsers, newest first; never the endpoint or keys (the page does not need them). */
export async function listPushSubscriptions(userId: string): Promise<SavedSubscription[]> {
  return db().pushSubscription.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, userAgent: true, createdAt: true, lastUsedAt: true },
  });
}
