// Demo data for a fresh local install (never in production): an admin, two
// reviewers and a requester. Runs only against an empty database (no users).
import "server-only";
import { randomBytes } from "node:crypto";
import { db } from "../db/client";
import { addUser } from "../users/add-user";

export const DEMO_USERS = {
  admin: { email: "admin@example.com", name: "Demo Admin", roles: ["admin", "reviewer"] },
  reviewer1: { email: "ria@example.com", name: "Ria Reviewer", roles: ["reviewer"] },
  reviewer2: { email: "rex@example.com", name: "Rex Reviewer", roles: ["reviewer"] },
  requester: { email: "ana@example.com", name: "Ana Requester", roles: [] },
} as const;

export async function databaseIsEmpty(): Promise<boolean> {
  return (await db().user.count()) === 0;
}

/** Creates the demo users with one fresh random password, and returns it. */
export async function seedDemoUsers(): Promise<{ password: string }> {
  const password = randomBytes(12).toString("base64url");
  for (const u of Object.values(DEMO_USERS)) {
    await addUser({ email: u.email, name: u.name, password, roles: [...u.roles] }, "system");
  }
  return { password };
}
