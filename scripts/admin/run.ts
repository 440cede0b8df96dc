// The admin command line's dispatcher: parses the words and flags, runs the
// command, prints its JSON. scripts/admin.ts calls it for `npm run admin`.
import { ZodError } from "zod";
import { AppError, issuesOf } from "@/lib/errors";
import { ConfigError } from "@/lib/env";
import { prepareDatabase } from "@/lib/startup/prepare";
import { db } from "@/lib/db/client";
import { asksForHelp, CommandOutcome, parseArgs, UsageError, type AdminOutput, type Command } from "./flags";
import { coreCommands } from "./core-commands";
import { auditCommands } from "./audit-commands";
import { policyCommands, ruleCommands } from "./policy-commands";
import { userCommands } from "./user-commands";
import { directoryCommands } from "./directory-commands";
import { backupCommands } from "./backup-commands";

const COMMANDS: Record<string, Command> = {
  ...coreCommands,
  ...auditCommands,
  ...policyCommands,
  ...ruleCommands,
  ...userCommands,
  ...directoryCommands,
  ...backupCommands,
};

function usage(): string {
  return ["usage: npm run admin -- <command>", ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join("\n");
}

function describe(e: unknown): string {
  if (e instanceof UsageError) return `${e.message}\n${usage()}`;
  if (e instanceof ZodError)
    return (
      "invalid input: " +
      issuesOf(e)
        .map((i) => `${i.path || "value"}: ${i.message}`)
        .join("; ")
    );
  if (e instanceof AppError) return `${e.code}: ${e.message}`;
  if (e instanceof ConfigError) return e.message;
  return `unexpected error: ${e instanceof Error ? e.message : String(e)}`;
}

export type { AdminOutput };

/**
 * Runs one admin command and returns its exit code. `keepConnection` leaves
 * the database client open for the next command in the same process (the
 * browser tests make their fixtures this way); the command line closes it.
 */
export async function runAdmin(argv: string[], out: AdminOutput, { keepConnection = false } = {}): Promise<number> {
  const { words, flags } = parseArgs(argv);
  // Two words ("audit verify") or one ("backup").
  const name = [words.slice(0, 2).join(" "), words[0] ?? ""].find((n) => n in COMMANDS) ?? words.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  const nameWords = name.split(" ").length;
  // Asking for help is not a mistake: usage on stdout, exit 0.
  if (asksForHelp(argv)) {
    await out.stdout((command ? `usage: npm run admin -- ${command.usage}` : usage()) + "\n");
    return 0;
  }
  try {
    if (!command || words.length !== nameWords + (command.args?.length ?? 0)) {
      throw new UsageError(words.length ? `unknown command: ${words.join(" ")}` : "no command");
    }
    const unknown = [...flags.keys()].filter((k) => !command.flags.includes(k));
    if (unknown.length) throw new UsageError(`unknown flag: --${unknown.join(", --")}`);
    if (!command.offline) await prepareDatabase();
    const result = await command.run(flags, words.slice(nameWords), out);
    if (result instanceof CommandOutcome) {
      if (result.body !== undefined) await out.stdout(JSON.stringify(result.body) + "\n");
      return result.exitCode;
    }
    await out.stdout(JSON.stringify(result) + "\n");
    return 0;
  } catch (e) {
    out.stderr(`error: ${describe(e)}\n`);
    return e instanceof UsageError ? 64 : 1;
  } finally {
    if (!command?.offline && !keepConnection)
      await db()
        .$disconnect()
        .catch(() => undefined);
  }
}
