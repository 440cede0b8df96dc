// "Send a test message" on /settings: one message to the user on each
// channel they chose (email, each browser with push on), through the same
// outbox and worker as every notification, so the test proves the real path.
// Bounded per user, so the button cannot be used to flood a mailbox.
import "server-only";
import { inTransaction } from "../db/transaction";
import { env } from "../env";
import { newId } from "../ids";
import { hitRateLimit } from "../rate-limit";
import { composeTestMessage } from "./compose-message";
import { emailChannel } from "./mailer";
import { pushChannel } from "./web-push";
import { pushRecipient, queueMessage, type OutboxMessage } from "./queue-message";

export const TEST_MESSAGES_PER_HOUR = 5;

export type TestMessageResult =
  { ok: true; queued: number; channels: string[] } | { ok: false; reason: "rate-limited"; retryAfter: number } | { ok: false; reason: "no-channel" };

export async function queueTestMessage(userId: string): Promise<TestMessageResult> {
  return inTransaction(async (tx) => {
    const user = await tx.user.findUnique({
      where: { id: userId },
      select: { email: true, disabledAt: true, notifyEmail: true, notifyPush: true, pushSubscriptions: { select: { id: true, endpoint: true } } },
    });
    if (!user || user.disabledAt) return { ok: false, reason: "no-channel" } as const;
    const m = composeTestMessage(`${env().appUrl}/settings`);
    const batch = newId("ntf"); // each press is its own set of messages
    const base = { approvalId: null, userId, kind: "test", subject: m.subject };
    const messages: OutboxMessage[] = [];
    if (user.notifyEmail && emailChannel() !== "off") {
      messages.push({ ...base, dedupeKey: `test:${batch}:email`, recipient: user.email, body: { channel: "email", text: m.text, html: m.html } });
    }
    if (user.notifyPush && pushChannel() === "on") {
      for (const s of user.pushSubscriptions) {
        messages.push({
          ...base,
          dedupeKey: `test:${batch}:push:${s.id}`,
          recipient: pushRecipient(user.email, s.endpoint),
          body: { channel: "push", text: m.text, payload: JSON.stringify(m.push), subscriptionId: s.id },
        });
      }
    }
    if (messages.length === 0) return { ok: false, reason: "no-channel" } as const;
    const limit = await hitRateLimit(tx, `test-message:${userId}`, TEST_MESSAGES_PER_HOUR, 3600);
    if (!limit.allowed) return { ok: false, reason: "rate-limited", retryAfter: limit.retryAfter } as const;
    for (const message of messages) await queueMessage(tx, message);
    const channels = [...new Set(messages.map((x) => x.body.channel))];
    return { ok: true, queued: messages.length, channels } as const;
  });
}
