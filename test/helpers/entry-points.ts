// The entry points the tests run as processes of their own: `npm start`'s
// launcher (scripts/start.ts), the admin command line (scripts/admin.ts), the
// demo agent (scripts/demo-agent.ts) and
// the helper processes that race and check decisions across processes.
// test/global-setup.ts bundles them once per Vitest process with esbuild (the
// same source, dependencies left in node_modules), so each start runs plain
// Node instead of transpiling the script and lib/ again through tsx. Without
// the bundles (a test run outside the global set-up) they run through tsx,
// as `npm start` and `npm run admin` do.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BuildOptions } from "esbuild";

const ENTRY_POINTS = {
  start: "scripts/start.ts",
  admin: "scripts/admin.ts",
  "demo-agent": "scripts/demo-agent.ts",
  "review-worker": "test/helpers/review-worker.ts",
  "check-decisions": "test/helpers/check-decisions.ts",
} as const;

export type EntryPoint = keyof typeof ENTRY_POINTS;

/** Set by test/global-setup.ts: the folder holding one `<name>.mjs` per entry point. */
export const BUNDLES_ENV = "COUNTERSIGN_TEST_BUNDLES";

/** How every test bundle is built: for this Node, as the server runs (react-server), packages from node_modules. */
export const NODE_BUNDLE: BuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  conditions: ["react-server"],
  logLevel: "warning",
};

/** Arguments to `process.execPath` that run the entry point; `viaTsx` as `npm start` runs it, a tsx launcher first. */
export function entryPointArgs(name: EntryPoint, { viaTsx = false } = {}): string[] {
  const dir = viaTsx ? undefined : process.env[BUNDLES_ENV];
  const bundle = dir ? join(dir, `${name}.mjs`) : null;
  if (bundle && existsSync(bundle)) return ["--conditions=react-server", bundle];
  return ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", ENTRY_POINTS[name]];
}

/** Bundles every entry point into `dir` (inside the repository, so packages resolve from node_modules). */
export async function bundleEntryPoints(dir: string): Promise<void> {
  const { build } = await import("esbuild");
  await build({ ...NODE_BUNDLE, entryPoints: ENTRY_POINTS, outdir: dir, outExtension: { ".js": ".mjs" } });
}
