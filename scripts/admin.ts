// Admin command line (docs/operations.md): `npm run admin -- <command> [--flag value]…`.
// Every command prints one JSON object on stdout and exits 0, or prints an
// error to stderr and exits non-zero. Flags are parsed here and validated by
// the lib/ functions they call, which hold every rule. Commands live in
// scripts/admin/*-commands.ts, one table per area.
import { ZodError } from "zod";
import { AppError, issuesOf } from "@/lib/errors";
import { ConfigError } from "@/lib/env";
import { prepareDatabase } from "@/lib/startup/prepare";
import { db } from "@/lib/db/client";
import { CommandOutcome, parseArgs, UsageError, type Command } from "./admin/flags";
import { coreCommands } from "./admin/core-commands";
import { auditCommands } from "./admin/audit-commands";
import { policyCommands, ruleCommands } from "./admin/policy-commands";
import { userCommands } from "./admin/user-commands";

const COMMANDS: Record<string, Command> = { ...coreCommands, ...auditCommands, ...policyCommands, ...ruleCommands, ...userCommands };

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

async function main(argv: string[]): Promise<number> {
  const { words, flags } = parseArgs(argv);
  const name = words.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  try {
    if (!command || words.length !== 2 + (command.args?.length ?? 0)) {
      throw new UsageError(words.length ? `unknown command: ${words.join(" ")}` : "no command");
    }
    const unknown = [...flags.keys()].filter((k) => !command.flags.includes(k));
    if (unknown.length) throw new UsageError(`unknown flag: --${unknown.join(", --")}`);
    if (!command.offline) await prepareDatabase();
    const result = await command.run(flags, words.slice(2));
    if (result instanceof CommandOutcome) {
      if (result.body !== undefined) process.stdout.write(JSON.stringify(result.body) + "\n");
      return result.exitCode;
    }
    process.stdout.write(JSON.stringify(result) + "\n");
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${describe(e)}\n`);
    return e instanceof UsageError ? 64 : 1;
  } finally {
    if (!command?.offline)
      await db()
        .$disconnect()
        .catch(() => undefined);
  }
}

process.exitCode = await main(process.argv.slice(2));
