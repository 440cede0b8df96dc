// A second process deciding requests: reads "approvalId reviewerId decision"
// lines on stdin, calls the one review function, answers one JSON line each.
// Lets tests race reviews across processes sharing one database.
import { createInterface } from "node:readline";
import { recordReview } from "@/lib/reviews/record-review";

const lines = createInterface({ input: process.stdin });
process.stdout.write(JSON.stringify({ ready: true }) + "\n");
for await (const line of lines) {
  const [approvalId, reviewerId, decision] = line.trim().split(" ");
  try {
    const out = await recordReview(reviewerId!, {
      approvalId: approvalId!,
      decision: decision === "deny" ? "deny" : "approve",
      reason: decision === "deny" ? "race" : undefined,
    });
    process.stdout.write(JSON.stringify({ approvalId, ok: true, status: out.status }) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ approvalId, ok: false, code: (e as { code?: string }).code ?? "error" }) + "\n");
  }
}
