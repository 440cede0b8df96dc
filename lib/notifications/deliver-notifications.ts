// Sending the outbox's messages, a batch at a time. A pass claims its batch
// with one conditional update under a lease owner of its own (so it reads
// back exactly what it won, whatever another instance claimed), reads what
// the checks need for the whole batch at once, sends several messages at a
// time (email, Web Push, webhooks, Slack: channel-senders.ts), and records
// every outcome in one transaction, well inside the lease (BATCH_BUDGET_MS).
// Just before sending, the recipient must still be able to act: a decided or
// expired request, a vote cast, a role revoked or an account disabled drops
// the message unsent.
// A failed attempt backs off and is retried for over 24 hours, so a mail
// server outage delays messages and loses none. A message a channel accepted
// or gave up on is an audit event.
import "server-only";
import { db } from "../db/client";
import { direct, directTransaction, placeholders, type SqlParam } from "../db/sql";
import { columnOf, columnsOf, insertRows, readRow, type RowOf } from "../db/rows";
import { appendAuditEvents } from "../audit/append-event";
import type { AuditInput } from "../audit/events";
import { backoffMs } from "../callbacks/deliver-callbacks";
import { env } from "../env";
import { errorFields, log } from "../log";
import { isShuttingDown } from "../shutdown";
import { newId } from "../ids";
import { approvalFacts, reviewerFacts } from "./recipients";
import { slackApprovalSelect } from "../slack/send-slack";
import { NOTIFY_MESSAGE_BATCH } from "./batch";
import { claimDue, givenUp, passOwner, release, WORKER_ID } from "../outbox/lease";
import { channelTurnedOff, noLongerConcerns, send, type Outcome, type PushBody, type SlackBody } from "./channel-senders";

/**
 * A batch is recorded well before its lease runs out, however slow a
 * channel is: an attempt still waiting then counts as failed (and is
 * retried), and a message not started yet is handed back unattempted.
 * Otherwise another instance could claim and send it a second time.
 */
const BATCH_BUDGET_MS = 40_000;
/** How many messages of a batch are on their way at once: emails and pushes wait on the sending thread (send-thread.ts), webhooks here. */
const SEND_CONCURRENCY = 64;

export type Message = RowOf<"Notification">;
type Attempt = { n: Message; outcome: Outcome; at: Date; durationMs: number };

/** Claims and sends a batch of due messages; returns how many it claimed (a full batch means more may be due). */
export async function deliverDueNotifications(now = new Date()): Promise<number> {
  if (isShuttingDown()) return 0;
  const owner = passOwner();
  const claimedAt = new Date();
  const won = await claimDue(direct(), "notifications", now, NOTIFY_MESSAGE_BATCH, owner);
  if (won === 0) return 0;
  const claimed = (
    await direct().all(`SELECT ${columnsOf("Notification")} FROM notifications WHERE lease_owner = ? ORDER BY next_attempt_at`, [owner])
  ).map((row) => readRow("Notification", row));
  const facts = await factsFor(claimed);
  const attempts: Attempt[] = [];
  const deadline = claimedAt.getTime() + BATCH_BUDGET_MS;
  // A message left unsent by a shutdown keeps its lease until stopBackgroundWork hands it back.
  await eachAtMost(SEND_CONCURRENCY, claimed, async (n) => {
    if (!isShuttingDown() && Date.now() < deadline) attempts.push(await attempt(n, facts, deadline));
  });
  await record(owner, attempts, facts);
  if (!isShuttingDown()) await handBack(owner);
  return won;
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** What the checks and the sending need, read once for the whole batch. */
async function factsFor(batch: Message[]) {
  const approvalIds = [...new Set(batch.flatMap((n) => (n.approvalId ? [n.approvalId] : [])))];
  const userIds = [...new Set(batch.flatMap((n) => (n.userId ? [n.userId] : [])))];
  const subscriptionIds = batch.flatMap((n) => (n.channel === "push" ? [(JSON.parse(n.body) as PushBody).subscriptionId] : []));
  const slackMessages = batch.filter((n) => n.channel === "slack");
  const postIds = slackMessages.flatMap((n) => {
    const update = (JSON.parse(n.body) as SlackBody).update;
    return update ? [update.postId] : [];
  });
  const slackApprovalIds = [...new Set(slackMessages.flatMap((n) => (n.approvalId ? [n.approvalId] : [])))];
  const [approvals, users, subscriptions, slackApprovals, slackPosts] = await Promise.all([
    db().approval.findMany({ where: { id: { in: approvalIds } }, select: { id: true, serviceId: true, ...approvalFacts } }),
    db().user.findMany({
      where: { id: { in: userIds } },
      select: { ...reviewerFacts, notifyEmail: true, notifyPush: true, notifySlack: true, slackUserId: true },
    }),
    subscriptionIds.length ? db().pushSubscription.findMany({ where: { id: { in: subscriptionIds } } }) : [],
    slackApprovalIds.length ? db().approval.findMany({ where: { id: { in: slackApprovalIds } }, select: slackApprovalSelect }) : [],
    postIds.length ? db().slackPost.findMany({ where: { id: { in: postIds } } }) : [],
  ]);
  return {
    approvals: new Map(approvals.map((a) => [a.id, a])),
    users: new Map(users.map((u) => [u.id, u])),
    subscriptions: new Map(subscriptions.map((s) => [s.id, s])),
    slackApprovals: new Map(slackApprovals.map((a) => [a.id, a])),
    slackPosts: new Map(slackPosts.map((p) => [p.id, p])),
    /** Push subscriptions that answered, and those the push service no longer knows. */
    pushUsed: [] as string[],
    pushGone: [] as string[],
    /** Slack messages posted in this batch, to be remembered for their update. */
    posted: [] as Array<{ notificationId: string; approvalId: string; channel: string; ts: string; userId: string | null }>,
  };
}
export type Facts = Awaited<ReturnType<typeof factsFor>>;

/** Messages of this pass left unattempted (the budget ran out): due again at once, for any instance. */
async function handBack(owner: string): Promise<void> {
  await release(direct(), "notifications", owner);
}

async function attempt(n: Message, facts: Facts, deadline: number): Promise<Attempt> {
  const started = Date.now();
  let outcome: Outcome;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ sent: false, error: "no answer before the batch's time ran out" }), Math.max(0, deadline - started));
  });
  try {
    const moot = noLongerConcerns(n, facts) ?? channelTurnedOff(n, facts);
    if (moot) outcome = { sent: false, dropped: moot };
    else outcome = await Promise.race([send(n, facts), late]);
  } catch (e) {
    // The error's class only: an SMTP answer can quote the message.
    log.warn("notification attempt failed", { notification: n.id, ...errorFields(e) });
    outcome = { sent: false, error: e instanceof Error ? `${e.name}${"code" in e ? ` ${String(e.code)}` : ""}` : "error" };
  }
  clearTimeout(timer);
  return { n, outcome, at: new Date(), durationMs: Date.now() - started };
}

/**
 * Every outcome of the pass in one transaction: the messages' new states
 * (rows with the same change in one statement), their attempt rows and
 * audit events. Only messages still under this pass's lease are touched: a
 * lease that ran out means another instance owns the message now.
 */
async function record(owner: string, attempts: Attempt[], facts: Facts): Promise<void> {
  if (attempts.length === 0) return;
  await directTransaction(async (sql) => {
    const attempted = attempts.map((a) => a.n.id);
    const stillMine = new Set(
      (
        await sql.all<{ id: string }>(`SELECT id FROM notifications WHERE id IN (${placeholders(attempted.length)}) AND lease_owner = ?`, [
          ...attempted,
          owner,
        ])
      ).map((r) => r.id),
    );
    const changes = new Map<string, { data: ReturnType<typeof newState>; ids: string[] }>();
    const rows: Array<RowOf<"NotificationAttempt">> = [];
    const events: AuditInput[] = [];
    const recordedAt = new Date();
    for (const a of attempts.filter((x) => stillMine.has(x.n.id))) {
      const data = newState(a, recordedAt);
      const key = JSON.stringify(data);
      const change = changes.get(key) ?? { data, ids: [] };
      change.ids.push(a.n.id);
      changes.set(key, change);
      rows.push({ id: newId("nta"), notificationId: a.n.id, at: a.at, result: data.result, detail: data.outcome, durationMs: a.durationMs });
      if (data.status === "sent" || data.status === "failed") {
        events.push({
          type: data.status === "sent" ? "notification.sent" : "notification.failed",
          actor: "system",
          approvalId: a.n.approvalId,
          data: { notification: a.n.id, channel: a.n.channel, kind: a.n.kind, recipient: a.n.recipient, outcome: data.outcome },
        });
      }
    }
    for (const { data, ids } of changes.values()) {
      const { result: _result, ...columns } = data;
      const set = Object.entries(columns) as Array<[keyof Message & string, SqlParam]>;
      await sql.run(
        `UPDATE notifications SET ${set.map(([field]) => `${columnOf("Notification", field)} = ?`).join(", ")}, lease_owner = NULL, lease_until = NULL
         WHERE id IN (${placeholders(ids.length)}) AND lease_owner = ?`,
        [...set.map(([, value]) => value), ...ids, owner],
      );
    }
    await insertRows(sql, "NotificationAttempt", rows);
    if (facts.pushUsed.length)
      await sql.run(`UPDATE push_subscriptions SET last_used_at = ? WHERE id IN (${placeholders(facts.pushUsed.length)})`, [
        recordedAt,
        ...facts.pushUsed,
      ]);
    if (facts.pushGone.length) await sql.run(`DELETE FROM push_subscriptions WHERE id IN (${placeholders(facts.pushGone.length)})`, facts.pushGone);
    const posted = facts.posted.filter((p) => stillMine.has(p.notificationId));
    await insertRows(
      sql,
      "SlackPost",
      posted.map((p) => ({ id: newId("slk"), ...p, shownStatus: "pending", createdAt: recordedAt })),
    );
    await appendAuditEvents(sql, events);
  });
}

/** A message's columns after an attempt, and the attempt's result (sentAt: when the batch is recorded, so a batch's sent messages share one update). */
function newState({ n, outcome, at }: Attempt, recordedAt: Date) {
  const attempts = n.attempts + 1;
  if (outcome.sent) return { result: "sent", status: "sent", outcome: outcome.how, attempts, sentAt: recordedAt };
  if ("dropped" in outcome) return { result: "dropped", status: "dropped", outcome: outcome.dropped, attempts };
  if ("giveUp" in outcome || givenUp(n.createdAt, at)) return { result: "error", status: "failed", outcome: outcome.error, attempts };
  // Slack's Retry-After, when it gave one, is the least wait.
  const wait = Math.max(backoffMs(attempts, env().NOTIFY_RETRY_BASE_MS), "retryAfterMs" in outcome ? (outcome.retryAfterMs ?? 0) : 0);
  const retryAt = new Date(at.getTime() + wait);
  return { result: "error", status: "pending", outcome: outcome.error, attempts, nextAttemptAt: retryAt };
}

/** On shutdown: hand this instance's leases back so another can send at once. */
export async function releaseNotificationLeases(): Promise<void> {
  // Every pass's owner name starts with this instance's (passOwner).
  await release(direct(), "notifications", `${WORKER_ID}/`, { prefix: true });
  await release(direct(), "notification_triggers", `${WORKER_ID}/`, { prefix: true });
}
