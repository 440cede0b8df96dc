// Starts the built app for the browser tests on a fresh SQLite database,
// through the same `npm start` entry point a user runs.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { E2E } from "./settings.mjs";

rmSync(E2E.dataDir, { recursive: true, force: true });
const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "--conditions=react-server", "scripts/start.ts"], {
  stdio: "inherit",
  env: {
    ...process.env,
    NODE_ENV: "test",
    PORT: String(E2E.appPort),
    APP_URL: E2E.appUrl,
    AUTH_URL: E2E.appUrl,
    DATABASE_URL: `file:./${E2E.dataDir}/countersign.db`,
    COUNTERSIGN_DATA_DIR: E2E.dataDir,
    AUTH_CREDENTIALS: "1",
    AUTH_OIDC_ISSUER: E2E.issuer,
    AUTH_OIDC_ID: E2E.clientId,
    AUTH_OIDC_SECRET: E2E.clientSecret,
    AUTH_OIDC_NAME: "Test IdP",
    // Access lines for every request would bury the test report.
    LOG_LEVEL: "warn",
  },
});
for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => child.kill(s));
child.on("exit", (code) => process.exit(code ?? 1));
