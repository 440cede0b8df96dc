// Compiles the workspace packages (packages/*) to their dist/ folders, the
// client first since the others import it. The app imports the packages as
// any user would, from their built ESM and type declarations, so this runs
// after every install and before the type check in `npm test`.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const order = ["client", "mcp-gateway", "ai-sdk", "openai-agents"];
// `node scripts/build-packages.mjs client`: only the packages named (a package's prepack).
const only = process.argv.slice(2);
const tsc = `${root}node_modules/typescript/bin/tsc`;

for (const name of order) {
  if (only.length && !only.includes(name)) continue;
  const config = `${root}packages/${name}/tsconfig.build.json`;
  if (!existsSync(config)) continue;
  // From scratch: a source file removed must not leave its old output behind to be packed.
  rmSync(`${root}packages/${name}/dist`, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [tsc, "-p", config], { stdio: "inherit", cwd: root });
  if (r.status !== 0) {
    console.error(`build-packages: packages/${name} did not compile`);
    process.exit(r.status ?? 1);
  }
}
