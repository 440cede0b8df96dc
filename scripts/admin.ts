// Admin command line (CONTRACT §8): `npm run admin -- <command> [--flag value]…`.
// Every command prints one JSON object on stdout and exits 0, or prints an
// error to stderr and exits non-zero. Flags are parsed here and validated by
// the lib/ functions they call, which hold every rule.
import { ZodError } from "zod";
import { AppError, issuesOf } from "@/lib/errors";
import { ConfigError } from "@/lib/env";
import { prepareDatabase } from "@/lib/db/prepare";
import { db } from "@/lib/db/client";
import { addUser } from "@/lib/users/add-user";
import { grantRole, revokeRole } from "@/lib/users/roles";

type Flags = Map<string, string[]>;

class UsageError extends Error {}

function parseArgs(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const next = argv[i + 1];
      const value = inline ?? (next !== undefined && !next.startsWith("--") ? (i++, next) : "true");
      flags.set(name, [...(flags.get(name) ?? []), value]);
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}

function one(flags: Flags, name: string): string {
  const v = flags.get(name);
  if (!v || v.length === 0) throw new UsageError(`missing --${name}`);
  if (v.length > 1) throw new UsageError(`--${name} given more than once`);
  return v[0]!;
}

function optional(flags: Flags, name: string): string | undefined {
  return flags.has(name) ? one(flags, name) : undefined;
}

type Command = { usage: string; flags: string[]; run: (f: Flags) => Promise<unknown> };

const COMMANDS: Record<string, Command> = {
  "user add": {
    usage: "user add --email E [--name N] [--password P] [--role R]...",
    flags: ["email", "name", "password", "role"],
    run: (f) =>
      addUser(
        { email: one(f, "email"), name: optional(f, "name"), password: optional(f, "password"), roles: f.get("role") ?? [] },
        "cli",
      ),
  },
  "role grant": {
    usage: "role grant --email E --role R",
    flags: ["email", "role"],
    run: (f) => grantRole({ email: one(f, "email"), role: one(f, "role") }, "cli"),
  },
  "role revoke": {
    usage: "role revoke --email E --role R",
    flags: ["email", "role"],
    run: (f) => revokeRole({ email: one(f, "email"), role: one(f, "role") }, "cli"),
  },
};

function usage(): string {
  return ["usage: npm run admin -- <command>", ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join("\n");
}

function describe(e: unknown): string {
  if (e instanceof UsageError) return `${e.message}\n${usage()}`;
  if (e instanceof ZodError) return "invalid input: " + issuesOf(e).map((i) => `${i.path || "value"}: ${i.message}`).join("; ");
  if (e instanceof AppError) return `${e.code}: ${e.message}`;
  if (e instanceof ConfigError) return e.message;
  return `unexpected error: ${e instanceof Error ? e.message : String(e)}`;
}

async function main(argv: string[]): Promise<number> {
  const { words, flags } = parseArgs(argv);
  const name = words.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  try {
    if (!command || words.length !== 2) throw new UsageError(words.length ? `unknown command: ${words.join(" ")}` : "no command");
    const unknown = [...flags.keys()].filter((k) => !command.flags.includes(k));
    if (unknown.length) throw new UsageError(`unknown flag: --${unknown.join(", --")}`);
    await prepareDatabase();
    const result = await command.run(flags);
    process.stdout.write(JSON.stringify(result) + "\n");
    return 0;
  } catch (e) {
    process.stderr.write(`error: ${describe(e)}\n`);
    return e instanceof UsageError ? 64 : 1;
  } finally {
    await db().$disconnect().catch(() => undefined);
  }
}

process.exitCode = await main(process.argv.slice(2));
