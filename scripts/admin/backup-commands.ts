// backup --out FILE | restore --in FILE (docs/operations.md)
import { createBackup } from "@/lib/backup/create-backup";
import { restoreBackup } from "@/lib/backup/restore-backup";
import { one, type Command } from "./flags";

export const backupCommands: Record<string, Command> = {
  backup: {
    usage: "backup --out FILE",
    flags: ["out"],
    run: async (f) => createBackup(one(f, "out")),
  },
  restore: {
    usage: "restore --in FILE",
    flags: ["in"],
    run: async (f) => ({ ok: true, ...(await restoreBackup(one(f, "in"))) }),
  },
};
