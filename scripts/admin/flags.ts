import { AppError } from "@/lib/errors";
import { UnreachableError } from "@/lib/policies/reachability";

// Flag parsing for the admin command line: `--name value`, repeatable flags.
export type Flags = Map<string, string[]>;

export class UsageError extends Error {}

/**
 * A command's answer with an exit code of its own (e.g. `audit verify` on a
 * broken chain exits 1), or `body: undefined` when the command has already
 * streamed its output (e.g. `audit export`, JSON Lines).
 */
export class CommandOutcome {
  constructor(
    readonly body: unknown,
    readonly exitCode = 0,
  ) {}
}

/**
 * Where a command's output goes: the process's streams (scripts/admin.ts),
 * or a caller's buffers (the browser tests' worker, in-process tests).
 * stdout may return a promise: wait for it before writing more (a stream
 * that is full, e.g. `audit export` of a long chain into a slow pipe).
 */
export type AdminOutput = { stdout: (text: string) => void | Promise<void>; stderr: (text: string) => void };

export type Command = {
  usage: string;
  flags: string[];
  /** Names of the positional arguments after the command's two words (e.g. `policy check FILE`). */
  args?: string[];
  /** Runs without a database: prepareDatabase() is skipped (e.g. `policy check`). */
  offline?: boolean;
  /** What it returns is printed as JSON; `out` is for what it prints itself (a stream of lines, a warning). */
  run: (f: Flags, args: string[], out: AdminOutput) => Promise<unknown>;
};

/**
 * `variadic`: flags that take every word after them up to the next flag
 * (`audit verify --archive a.jsonl b.jsonl`).
 */
export function parseArgs(argv: string[], variadic: ReadonlySet<string> = VARIADIC): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--")) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const next = argv[i + 1];
      const value = inline ?? (next !== undefined && !next.startsWith("--") ? (i++, next) : "true");
      flags.set(name, [...(flags.get(name) ?? []), value]);
      while (variadic.has(name) && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) flags.get(name)!.push(argv[++i]!);
    } else {
      words.push(arg);
    }
  }
  return { words, flags };
}

/** Flags of any command that take several values after them. */
const VARIADIC: ReadonlySet<string> = new Set(["archive"]);

export function one(flags: Flags, name: string): string {
  const v = flags.get(name);
  if (!v || v.length === 0) throw new UsageError(`missing --${name}`);
  if (v.length > 1) throw new UsageError(`--${name} given more than once`);
  return v[0]!;
}

export function optional(flags: Flags, name: string): string | undefined {
  return flags.has(name) ? one(flags, name) : undefined;
}

/**
 * Whether the words ask for help: `--help`, `-h` as a word of its own (not
 * the value of a flag: `--reason -h` is a reason), or just `help`.
 */
export function asksForHelp(argv: string[]): boolean {
  const { words, flags } = parseArgs(argv);
  return flags.has("help") || words.includes("-h") || (words.length === 1 && words[0] === "help");
}

/** A flag that takes no value, such as `--anyway`: present or not. */
export function switchFlag(flags: Flags, name: string): boolean {
  const v = flags.get(name);
  if (!v) return false;
  if (v.length > 1) throw new UsageError(`--${name} given more than once`);
  if (v[0] !== "true") throw new UsageError(`--${name} takes no value`);
  return true;
}

/**
 * A refusal of a change nobody could satisfy (lib/policies/reachability.ts),
 * with the command line's way round it: `--anyway`.
 */
export function withAnywayHint<T>(run: () => Promise<T>): Promise<T> {
  return run().catch((e: unknown) => {
    if (e instanceof UnreachableError) {
      // A policy waits for roles to be granted; a grant or a mapping for a policy to be written.
      const way =
        e.what === "policy" ? "To save it all the same (roles you will grant later)" : "To go ahead all the same (a policy you will write later)";
      throw new AppError(e.code, `${e.message} ${way}, add --anyway.`);
    }
    throw e;
  });
}
