// postinstall: write the per-provider schemas and generate both Prisma clients.
// `prisma generate` insists on a schema-engine binary even though it does not
// use it; where Prisma's download server is unreachable (as on our machines) we
// point it at our WASM-backed engine, which is a real, working engine.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PROVIDERS, schemaPath, writeSchemas } from "./schemas.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
writeSchemas();

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
const shim = join(root, "scripts", "prisma-engine", "schema-engine");
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && existsSync(shim)) env.PRISMA_SCHEMA_ENGINE_BINARY = shim;

const prismaBin = join(root, "node_modules", "prisma", "build", "index.js");
for (const provider of PROVIDERS) {
  execFileSync(process.execPath, [prismaBin, "generate", "--schema", schemaPath(provider)], {
    cwd: root,
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
console.log("countersign: generated Prisma clients for", PROVIDERS.join(" and "));
