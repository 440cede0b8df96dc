// Sign-in, sign-out and the anonymous redirect, with the credentials form and
// through a real OIDC issuer (e2e/oidc-issuer.mjs).
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { E2E } from "./config";
import { createUser, onSignInPage, signIn, submitSignIn } from "./helpers";

test("credentials sign-in, then sign-out ends the session", async ({ page }) => {
  const user = createUser({ roles: ["reviewer"] });

  await signIn(page, user);
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(onSignInPage);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();

  await page.goto("/approvals");
  await expect(page).toHaveURL(onSignInPage);
  await expect(page.getByTestId("current-user")).toHaveCount(0);
});

test("a session cookie kept from before sign-out no longer signs anyone in", async ({ page, context }) => {
  const user = createUser();
  await signIn(page, user);
  const before = await context.cookies(E2E.appUrl);
  expect(before.length).toBeGreaterThan(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(onSignInPage);

  // Put the old cookies back, as a thief holding a copy would: the server-side
  // session behind the JWT was revoked at sign-out.
  await context.addCookies(before);
  await page.goto("/approvals");
  await expect(page).toHaveURL(onSignInPage);
  await expect(page.getByTestId("current-user")).toHaveCount(0);
});

test("a wrong password shows an error and stays on /signin", async ({ page }) => {
  const user = createUser();

  await submitSignIn(page, { email: user.email, password: `${user.password}-wrong` });
  await expect(page).toHaveURL(/\/signin\?error=credentials(&|$)/);
  // Scoped to <main>: Next's route announcer is also a role="alert".
  await expect(page.getByRole("main").getByRole("alert")).toContainText("Wrong email or password");
  await expect(page.getByTestId("current-user")).toHaveCount(0);

  // Still signed out: the queue sends us back to the sign-in page.
  await page.goto("/approvals");
  await expect(page).toHaveURL(onSignInPage);
});

test("an anonymous visit to /approvals ends on /signin", async ({ page }) => {
  await page.goto("/approvals");
  await expect(page).toHaveURL(onSignInPage);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to Countersign" })).toBeVisible();
  await expect(page.getByTestId("current-user")).toHaveCount(0);
});

test("OIDC sign-in through the issuer creates a user with no role", async ({ page }) => {
  const login = `oidc-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
  const email = `${login}@idp.example.com`;

  await page.goto("/signin");
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();

  // The issuer's own sign-in page.
  await expect(page).toHaveURL((url) => url.origin === E2E.issuer && url.pathname.startsWith("/interaction/"));
  await expect(page.getByRole("heading", { name: "Test IdP sign-in" })).toBeVisible();
  await page.getByLabel("Username or email").fill(login);
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page).toHaveURL(`${E2E.appUrl}/approvals`);
  await expect(page.getByRole("heading", { level: 1, name: "Approvals" })).toBeVisible();
  await expect(page.getByText("You have no reviewer role yet")).toBeVisible();
  await expect(page.getByTestId("current-user")).toHaveText(email);
});

test("OIDC sign-in with an unverified email of an existing user is refused", async ({ page }) => {
  const existing = createUser({ roles: ["reviewer"] });

  await page.goto("/signin");
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await expect(page.getByRole("heading", { name: "Test IdP sign-in" })).toBeVisible();
  await page.getByLabel("Username or email").fill(existing.email);
  await page.getByLabel("Email verified").selectOption("no");
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page).toHaveURL(/\/signin\?error=AccessDenied(&|$)/);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("cannot sign in here");
  await expect(page.getByTestId("current-user")).toHaveCount(0);

  // The existing account itself is untouched.
  await signIn(page, existing);
});
