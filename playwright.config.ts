// Browser tests: Debian's Chromium (never a downloaded browser) against the
// built app on a throwaway SQLite database, with a real local OIDC issuer.
import { defineConfig, devices } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/chromium.mjs";
import { E2E } from "./e2e/config";

export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.spec\.ts/,
  // Two files at a time, each file's tests in order: every test makes its own
  // users, services and policies, so files meet only in what every reviewer
  // sees (the queue, notices), and tests check their own rows there.
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // Per test, as Vitest's: the project's CI machine ran this lane in 1,645 s
  // against 993 s on this kind of machine, where single tests take up to 44 s.
  timeout: 120_000,
  // A web-first assertion waits for the page to get there. The browser lane
  // shares two cores with four Vitest lanes, where a vote's re-render has
  // taken longer than Playwright's 5 s default; nothing here measures speed.
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  // The admin CLI the tests make their users with, bundled once (e2e/global-setup.ts).
  globalSetup: "./e2e/global-setup.ts",
  // Per E2E_PORT, so two runs on one machine keep their own failure screenshots and traces.
  outputDir: process.env.E2E_PORT ? `.tmp/e2e-results-${process.env.E2E_PORT}` : ".tmp/e2e-results",
  use: {
    baseURL: E2E.appUrl,
    // No trace in the full run: recording one for every test (to keep the
    // failures') cost a fifth of the browser lane's CPU. To look into a
    // failure, run its file again with `--trace on` (docs/testing.md).
    trace: "off",
    screenshot: "only-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"] } }],
  webServer: [
    {
      command: "node e2e/oidc-issuer.mjs",
      url: `${E2E.issuer}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: "node e2e/start-app.mjs",
      url: `${E2E.appUrl}/signin`,
      reuseExistingServer: false,
      timeout: 180_000,
      stdout: "pipe",
    },
  ],
});
