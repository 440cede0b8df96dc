// audit verify [--checkpoint FILE] | audit export [--since ISO] | audit checkpoint | receipt verify FILE
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { z } from "zod";
import { verifyReceiptText } from "@/lib/passkeys/verify-receipt";
import { checkpointSchema, createCheckpoint, eventsInOrder, verifyChain } from "@/lib/audit/verify-chain";
import { CommandOutcome, optional, UsageError, type Command } from "./flags";

function readCheckpoint(path: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new UsageError(`cannot read checkpoint file ${path} as JSON`);
  }
  const parsed = checkpointSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`${path} is not a checkpoint ({"seq","head","signature"})`);
  return parsed.data;
}

export const auditCommands: Record<string, Command> = {
  "audit verify": {
    usage: "audit verify [--checkpoint FILE]",
    flags: ["checkpoint"],
    run: async (f) => {
      const file = optional(f, "checkpoint");
      const result = await verifyChain({ checkpoint: file ? readCheckpoint(file) : undefined });
      return new CommandOutcome(result, result.ok ? 0 : 1);
    },
  },
  "audit export": {
    usage: "audit export [--since ISO]",
    flags: ["since"],
    run: async (f) => {
      const sinceText = optional(f, "since");
      const since = sinceText === undefined ? undefined : z.iso.datetime({ offset: true }).safeParse(sinceText);
      if (since && !since.success) throw new UsageError("--since must be an ISO 8601 date-time, e.g. 2026-11-29T00:00:00Z");
      // JSON Lines, written as read: memory stays flat however long the chain.
      for await (const ev of eventsInOrder(since?.data ? new Date(since.data) : undefined)) {
        const line = JSON.stringify({ ...ev, data: JSON.parse(ev.data) as unknown }) + "\n";
        if (!process.stdout.write(line)) await once(process.stdout, "drain");
      }
      return new CommandOutcome(undefined);
    },
  },
  "audit checkpoint": { usage: "audit checkpoint", flags: [], run: async () => createCheckpoint() },
  // A consume receipt (compact JWS) against this database's receipt keys and reviewers' passkeys (docs/passkeys.md).
  "receipt verify": {
    usage: "receipt verify FILE",
    flags: [],
    args: ["FILE"],
    run: async (_f, [file]) => {
      let text: string;
      try {
        text = readFileSync(file!, "utf8");
      } catch {
        throw new UsageError(`cannot read receipt file ${file}`);
      }
      const result = await verifyReceiptText(text);
      if (!result.ok) process.stderr.write(`receipt does not verify: ${result.failures.join("; ")}\n`);
      return new CommandOutcome(result, result.ok ? 0 : 1);
    },
  },
};
