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

export type Command = {
  usage: string;
  flags: string[];
  /** Names of the positional arguments after the command's two words (e.g. `policy check FILE`). */
  args?: string[];
  /** Runs without a database: prepareDatabase() is skipped (e.g. `policy check`). */
  offline?: boolean;
  run: (f: Flags, args: string[]) => Promise<unknown>;
};

export function parseArgs(argv: string[]): { words: string[]; flags: Flags } {
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
