// Reads, in a process of its own (as after a restart), every request of one
// service and reports any that is half-decided. Prints one JSON line.
import { db } from "@/lib/db/client";
import { verifyChain } from "@/lib/audit/verify-chain";

const serviceId = process.argv[2]!;
const problems: string[] = [];
let decided = 0;
let pending = 0;
for (const a of await db().approval.findMany({ where: { serviceId } })) {
  const reviews = await db().review.findMany({ where: { approvalId: a.id } });
  const deliveries = await db().callbackDelivery.count({ where: { approvalId: a.id } });
  const events = await db().auditEvent.findMany({ where: { approvalId: a.id }, select: { type: true } });
  const count = (t: string) => events.filter((e) => e.type === t).length;
  const fail = (what: string) => problems.push(`${a.id} (${a.status}): ${what}`);
  if (count("review.recorded") !== reviews.length) fail("review events ≠ review rows");
  if (a.approveCount !== reviews.filter((r) => r.decision === "approve").length) fail("approve count ≠ approvals");
  if (a.status === "pending") {
    pending++;
    if (count("approval.decided") !== 0) fail("decision event on a pending request");
    if (deliveries !== 0) fail("callback queued for a pending request");
    if (reviews.some((r) => r.decision === "deny")) fail("a denial left it pending");
    if (a.approveCount >= a.quorum) fail("quorum reached but pending");
  } else {
    decided++;
    if (!["approved", "denied"].includes(a.status)) fail("unexpected status");
    if (count("approval.decided") !== 1) fail("decision events ≠ 1");
    if (deliveries !== 1) fail("callback rows ≠ 1");
    if ((JSON.parse(a.decidedBy) as string[]).length === 0) fail("decided by nobody");
  }
}
const chain = await verifyChain();
process.stdout.write(JSON.stringify({ ready: true }) + "\n");
process.stdout.write(JSON.stringify({ decided, pending, problems, chainOk: chain.ok }) + "\n");
await db().$disconnect();
