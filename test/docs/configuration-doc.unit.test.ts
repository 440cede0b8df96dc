// docs/configuration.md is generated from the configuration's schema
// (lib/env.ts and lib/env/, scripts/docs/configuration.ts): it must be what the generator
// writes now, and it must list every variable the schema reads.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "@/lib/env";
import { renderConfiguration } from "../../scripts/docs/configuration";

describe("docs/configuration.md", () => {
  const written = readFileSync(join(process.cwd(), "docs", "configuration.md"), "utf8");

  it("is current: `npm run docs:config` would write exactly this", () => {
    expect(written, "docs/configuration.md is out of date: run `npm run docs:config`").toBe(renderConfiguration());
  });

  it("lists every variable of the schema once, with its default", () => {
    for (const name of Object.keys(envSchema.shape)) expect(written.split(`| \`${name}\` |`).length - 1, name).toBe(1);
    expect(written).toContain("| `PORT` | `3000` | whole number, 1–65535 |");
    expect(written).toContain("| `AUDIT_KEY` | generated locally |");
    expect(written).toContain("| `AUTH_CREDENTIALS` | `1` in local mode | `1` or `0` |");
  });
});
