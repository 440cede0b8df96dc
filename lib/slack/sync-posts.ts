// Slack messages follow their request: a posted message whose request was
// decided, expired or withdrawn since (anywhere: the browser, Slack, the
// sweeper, the service) gets an update through the outbox, once. The
// conditional update of shown_status is the claim: on several instances,
// one wins each post.
import "server-only";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { queueMessage } from "../notifications/queue-message";

const BATCH = 100;

/** Queues an update for each post whose request is no longer pending; returns how many. */
export async function queueSlackUpdates(): Promise<number> {
  const stale = await db().slackPost.findMany({
    where: { shownStatus: "pending", approval: { status: { not: "pending" } } },
    select: { id: true, approvalId: true, channel: true, userId: true, approval: { select: { status: true } } },
    take: BATCH,
  });
  if (stale.length === 0) return 0;
  return inTransaction(async (tx) => {
    let queued = 0;
    for (const post of stale) {
      const status = post.approval.status;
      const { count } = await tx.slackPost.updateMany({ where: { id: post.id, shownStatus: "pending" }, data: { shownStatus: status } });
      if (count === 0) continue; // another instance has it
      await queueMessage(tx, {
        dedupeKey: `slack-update:${post.id}:${status}`,
        approvalId: post.approvalId,
        userId: null,
        kind: "slack_update",
        recipient: `Slack message in ${post.channel}`,
        subject: `request ${status}`,
        body: { channel: "slack", text: `The Slack message now shows the request ${status}.`, update: { postId: post.id } },
      });
      queued++;
    }
    return queued;
  });
}
