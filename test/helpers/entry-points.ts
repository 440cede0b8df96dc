// The entry points the tests run as processes of their own: `npm start`'s
// launcher (scripts/start.ts) and the admin command line (scripts/admin.ts).
// test/global-setup.ts bundles both once per Vitest process with esbuild (the
// same source, dependencies left in node_modules), so each app start and each
// CLI call runs plain Node instead of transpiling the launcher and lib/ again
// through tsx. Without the bundles (a test run outside the global set-up)
// they run through tsx, as `npm start` and `npm run admin` do.
import { existsSync } from "node:fs";
import { join } from "node:path";

export type EntryPoint = "start" | "admin";

/** Set by test/global-setup.ts: the folder holding start.mjs and admin.mjs. */
export const BUNDLES_ENV = "COUNTERSIGN_TEST_BUNDLES";

/** Arguments to `process.execPath` that run the entry point; `viaTsx` as `npm start` runs it, a tsx launcher first. */
export function entryPointArgs(name: EntryPoint, { viaTsx = false } = {}): string[] {
  const dir = viaTsx ? undefined : process.env[BUNDLES_ENV];
  const bundle = dir ? join(dir, `${name}.mjs`) : null;
  if (bundle && existsSync(bundle)) return ["--conditions=react-server", bundle];
  return ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", `scripts/${name}.ts`];
}

/** Bundles both entry points into `dir` (inside the repository, so packages resolve from node_modules). */
export async function bundleEntryPoints(dir: string): Promise<void> {
  const { build } = await import("esbuild");
  await build({
    entryPoints: { start: "scripts/start.ts", admin: "scripts/admin.ts" },
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    conditions: ["react-server"],
    logLevel: "warning",
  });
}
