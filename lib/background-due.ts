// Whether the background loop (lib/background.ts) has anything to do: one
// statement on the driver, asked on each of the clock's ticks before the
// steps' own queries. An idle instance used to run seven Prisma queries a
// second to find nothing; this asks once (docs/performance.md, "A cheap
// idle second").
//
// Each clause is the query of one step, without its batch and order; a step
// added to the loop adds its clause here and its case to
// test/outbox/work-due.suite.ts, which checks each clause against the
// step it stands for.
import "server-only";
import { direct } from "./db/sql";
import { CLAIMABLE_SQL } from "./outbox/lease";

const DUE_SQL = `SELECT CASE WHEN
  EXISTS (SELECT 1 FROM approvals WHERE status = 'pending' AND expires_at <= ?)
  OR EXISTS (SELECT 1 FROM callback_deliveries WHERE next_attempt_at <= ? AND ${CLAIMABLE_SQL})
  OR EXISTS (SELECT 1 FROM notification_triggers WHERE due_at <= ? AND ${CLAIMABLE_SQL})
  OR EXISTS (SELECT 1 FROM notifications WHERE next_attempt_at <= ? AND ${CLAIMABLE_SQL})
  OR EXISTS (SELECT 1 FROM slack_posts p JOIN approvals a ON a.id = p.approval_id WHERE p.shown_status = 'pending' AND a.status <> 'pending')
  THEN 1 ELSE 0 END AS due`;
/** Every placeholder is the time asked about. */
const PLACEHOLDERS = DUE_SQL.split("?").length - 1;

/**
 * True when at `now` a request is past its expiry (sweepExpired), a callback
 * is due (deliverDueCallbacks), a notification trigger is due
 * (fanOutDueTriggers), a message is due (deliverDueNotifications), or a Slack
 * post still shows a decided request as pending (queueSlackUpdates). Rows under
 * another instance's running lease do not count: that instance has them.
 */
export async function backgroundWorkDue(now = new Date()): Promise<boolean> {
  const [row] = await direct().all<{ due: unknown }>(DUE_SQL, Array<Date>(PLACEHOLDERS).fill(now));
  return Number(row?.due) === 1;
}
