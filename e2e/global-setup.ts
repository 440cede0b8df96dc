// Before the browser tests: the admin CLI (scripts/admin.ts and the lib/ it
// imports) bundled once with esbuild into one file, which adminCli() runs with
// plain Node. The same source as `npm run admin`; what it saves is tsx
// transpiling the CLI and all of lib/ again for each of the hundred-odd users,
// services and policies the tests make (each call took 6–8 s on a busy
// machine, 3–3.7 s bundled). Dependencies stay in node_modules, as for tsx.
import { build } from "esbuild";
import { E2E } from "./config";

export default async function globalSetup(): Promise<void> {
  await build({
    entryPoints: ["scripts/admin.ts"],
    outfile: E2E.adminCliBundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    conditions: ["react-server"],
    logLevel: "warning",
  });
}
