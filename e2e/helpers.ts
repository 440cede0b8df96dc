// Shared steps for the browser tests. Users are created through the real
// admin command line's dispatcher (bundled once per run, kept loaded in a
// worker thread) against the e2e app's database (SQLite in WAL mode, so the
// worker and the running app may write at the same time).
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createSyncFn } from "synckit";
import { expect, type Page } from "@playwright/test";
import { CountersignClient } from "@countersign/client";
import { E2E } from "./config";

export type TestUser = { email: string; password: string };

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** Environment that points a CLI process at the e2e app's database and data directory. */
export function e2eEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "test",
    DATABASE_URL: `file:./${E2E.dataDir}/countersign.db`,
    COUNTERSIGN_DATA_DIR: E2E.dataDir,
  };
}

type AdminRun = (bundleUrl: string, env: NodeJS.ProcessEnv, args: readonly string[]) => { code: number; stdout: string; stderr: string };
let runInWorker: AdminRun | null = null;

/**
 * Runs an admin command (the dispatcher `npm run admin -- <args>` runs,
 * bundled once per run by e2e/global-setup.ts) in this test process's admin
 * worker thread, waiting for it, and returns its JSON output. Throws, with
 * stderr, on a non-zero exit.
 */
export function adminCli(args: readonly string[]): unknown {
  // The worker resolves packages as the app does (server-only and the rest under react-server).
  runInWorker ??= createSyncFn(fileURLToPath(new URL("./admin-worker.mjs", import.meta.url)), {
    execArgv: ["--conditions=react-server"],
    timeout: 60_000,
  }) as AdminRun;
  const { code, stdout, stderr } = runInWorker(pathToFileURL(resolve(repoRoot, E2E.adminCliBundle)).href, e2eEnv(), args);
  if (code !== 0) throw new Error(`admin CLI ${args.slice(0, 2).join(" ")} failed (exit ${code}): ${stderr.trim()}`);
  return JSON.parse(stdout);
}

/** A unique email for this run, safe to use for a user that must not exist yet. */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}@e2e.example.com`;
}

/** Creates a user with a unique email and a random password, holding exactly `roles`. */
export function createUser({ roles = [] as readonly string[], prefix = "user" } = {}): TestUser {
  const email = uniqueEmail(prefix);
  const password = randomBytes(18).toString("base64url");
  // Inline: a random password can start with "--", which as a separate word reads as a flag.
  const args = ["user", "add", "--email", email, `--password=${password}`];
  for (const role of roles) args.push("--role", role);
  // A fixture's roles may come before the policy that uses them (lib/policies/reachability.ts).
  if (roles.length > 0) args.push("--anyway");
  const created = adminCli(args) as { email?: unknown; roles?: unknown };
  if (created.email !== email) throw new Error(`admin CLI created ${String(created.email)}, expected ${email}`);
  return { email, password };
}

/** A short random tag that keeps names made by one test apart from another's. */
export const tag = () => randomBytes(4).toString("hex");

/** An executor client (@countersign/client) for a service the admin CLI made. */
export function clientFor(s: { slug: string; webhook_secret: string | string[]; api_token: string }): CountersignClient {
  return new CountersignClient({ baseUrl: E2E.appUrl, serviceSlug: s.slug, webhookSecret: s.webhook_secret, apiToken: s.api_token });
}

/** A new service (admin CLI), named `<prefix>-<random tag>`, and an executor client for it. */
export function newService(prefix: string): { slug: string; client: CountersignClient } {
  const s = adminCli(["service", "add", "--slug", `${prefix}-${tag()}`]) as { slug: string; webhook_secret: string; api_token: string };
  return { slug: s.slug, client: clientFor(s) };
}

/** Where an anonymous visitor is sent. */
export const onSignInPage = /\/signin(\?.*)?$/;

type SignInOptions = {
  /**
   * Fill the form once the page is hydrated, so it posts as a server action
   * from script (a native form POST made before hydration is sent with
   * `Origin: null` under `Referrer-Policy: no-referrer`, and Next refuses it).
   */
  hydrated?: boolean;
};

/** Fills the sign-in form; does not wait for any outcome. */
export async function submitSignIn(page: Page, user: TestUser, { hydrated = false }: SignInOptions = {}): Promise<void> {
  await page.goto("/signin", hydrated ? { waitUntil: "networkidle" } : undefined);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  // exact: "Sign in with Test IdP" also contains "Sign in".
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** Signs in with email and password and waits until the approvals page shows the user. */
export async function signIn(page: Page, user: TestUser, options: SignInOptions = {}): Promise<void> {
  await submitSignIn(page, user, options);
  await expect(page).toHaveURL(/\/approvals$/);
  await expect(page.getByTestId("current-user")).toHaveText(user.email);
}
