// docs/configuration.md, generated from the configuration's schema
// (lib/env.ts, its variables by group in lib/env/): every variable with its
// default, what it accepts and what it does, grouped as ENV_GROUPS says.
// `npm run docs:config` writes it; test/docs/configuration-doc.unit.test.ts
// fails when it is out of date.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ENV_GROUPS, envSchema, type EnvDoc } from "@/lib/env";

type JsonSchema = {
  type?: string;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  default?: unknown;
};

const FLAG = ["0", "1", "true", "false", ""];

/** What a variable accepts, in words, from its JSON Schema. */
function accepts(s: JsonSchema): string {
  if (s.enum && s.enum.length === FLAG.length && FLAG.every((v) => s.enum!.includes(v))) return "`1` or `0`";
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(", ");
  if (s.type === "integer") return s.minimum !== undefined && s.maximum !== undefined ? `whole number, ${s.minimum}–${s.maximum}` : "whole number";
  if (s.format === "uri") return "URL";
  return "text";
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The whole of docs/configuration.md. */
export function renderConfiguration(): string {
  const json = z.toJSONSchema(envSchema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, JsonSchema> };
  const rows = new Map<string, string[]>();
  for (const [name, field] of Object.entries(envSchema.shape)) {
    const meta = (field as z.ZodType).meta() as EnvDoc | undefined;
    if (!meta?.group || !meta.description) throw new Error(`lib/env/: ${name} has no documentation (doc(group, description))`);
    const s = json.properties[name] ?? {};
    const fallback = meta.defaultNote ?? (s.default !== undefined ? `\`${String(s.default)}\`` : "—");
    const list = rows.get(meta.group) ?? [];
    list.push(`| \`${name}\` | ${cell(fallback)} | ${cell(accepts(s))} | ${cell(meta.description)} |`);
    rows.set(meta.group, list);
  }
  const out = [
    "# Configuration",
    "",
    "<!-- Generated from lib/env.ts by `npm run docs:config`; edit the descriptions there. `npm test` fails when this file is out of date. -->",
    "",
    "Countersign reads its configuration from the environment, once, and checks",
    "all of it before it serves: a value it does not accept stops start-up with",
    "a message that names the variable. Outside production (`NODE_ENV` not",
    "`production`), the secrets marked *generated locally* are made once and kept",
    "in `COUNTERSIGN_DATA_DIR`; in production every one of them must be set.",
    "",
  ];
  for (const [key, title] of Object.entries(ENV_GROUPS)) {
    const list = rows.get(key);
    if (!list) continue;
    out.push(`## ${title}`, "", "| Variable | Default | Accepts | What it does |", "| --- | --- | --- | --- |", ...list, "");
  }
  return out.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = join(process.cwd(), "docs", "configuration.md");
  writeFileSync(target, renderConfiguration());
  console.log(`wrote ${target}`);
}
