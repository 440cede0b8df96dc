// The browser test run's settings (e2e/e2e.json), read by the Playwright
// config, the tests and the .mjs launchers alike. E2E_PORT moves the app (and
// the issuer, one port up) and its data directory, so two runs can share a
// machine without meeting.
import { readFileSync } from "node:fs";

const base = JSON.parse(readFileSync(new URL("./e2e.json", import.meta.url), "utf8"));
const port = process.env.E2E_PORT ? Number(process.env.E2E_PORT) : null;
if (port !== null && !(Number.isInteger(port) && port > 0 && port < 65535)) throw new Error("E2E_PORT must be a port number");

const moved =
  port === null
    ? base
    : {
        ...base,
        appPort: port,
        appUrl: `http://localhost:${port}`,
        issuerPort: port + 1,
        issuer: `http://localhost:${port + 1}`,
        dataDir: `${base.dataDir}-${port}`,
      };

/** Where e2e/global-setup.ts bundles the admin CLI for this run (outside dataDir, which the app's launcher empties). */
export const E2E = { ...moved, adminCliBundle: `${moved.dataDir}-admin-cli/admin.mjs` };
