// audit verify [--checkpoint FILE] [--archive FILE…] | audit archive --before ISO --out FILE | audit export [--since ISO] | audit checkpoint | receipt verify FILE
import { readFileSync } from "node:fs";
import { z } from "zod";
import { verifyReceiptText } from "@/lib/passkeys/verify-receipt";
import { checkpointSchema, createCheckpoint, eventsInOrder, verifyChain } from "@/lib/audit/verify-chain";
import { archiveChain, verifyWithArchives } from "@/lib/retention/archive-chain";
import { CommandOutcome, one, optional, UsageError, type Command } from "./flags";

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
    usage: "audit verify [--checkpoint FILE] [--archive FILE…]",
    flags: ["checkpoint", "archive"],
    run: async (f) => {
      const file = optional(f, "checkpoint");
      const archives = f.get("archive");
      if (archives && file) throw new UsageError("--checkpoint and --archive are checked separately: give one of them");
      const result = archives ? await verifyWithArchives(archives) : await verifyChain({ checkpoint: file ? readCheckpoint(file) : undefined });
      return new CommandOutcome(result, result.ok ? 0 : 1);
    },
  },
  "audit archive": {
    usage: "audit archive --before ISO --out FILE",
    flags: ["before", "out"],
    run: async (f) => {
      const before = z.iso.datetime({ offset: true }).safeParse(one(f, "before"));
      if (!before.success) throw new UsageError("--before must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z");
      return archiveChain(new Date(before.data), one(f, "out"));
    },
  },
  "audit export": {
    usage: "audit export [--since ISO]",
    flags: ["since"],
    run: async (f, _args, out) => {
      const sinceText = optional(f, "since");
      const since = sinceText === undefined ? undefined : z.iso.datetime({ offset: true }).safeParse(sinceText);
      if (since && !since.success) throw new UsageError("--since must be an ISO 8601 date-time, e.g. 2026-11-29T00:00:00Z");
      // JSON Lines, written as read: memory stays flat however long the chain.
      for await (const ev of eventsInOrder(since?.data ? new Date(since.data) : undefined)) {
        const line = JSON.stringify({ ...ev, data: JSON.parse(ev.data) as unknown }) + "\n";
        await out.stdout(line);
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
    run: async (_f, [file], out) => {
      let text: string;
      try {
        text = readFileSync(file!, "utf8");
      } catch {
        throw new UsageError(`cannot read receipt file ${file}`);
      }
      const result = await verifyReceiptText(text);
      if (!result.ok) out.stderr(`receipt does not verify: ${result.failures.join("; ")}\n`);
      return new CommandOutcome(result, result.ok ? 0 : 1);
    },
  },
};
