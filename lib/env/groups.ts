// The sections of docs/configuration.md, and the documentation each variable
// carries on its schema (scripts/docs/configuration.ts reads both).

/** Where a variable is listed in docs/configuration.md, in this order. */
export const ENV_GROUPS = {
  server: "Server",
  data: "Database and data directory",
  secrets: "Secrets",
  "sign-in": "Sign-in",
  policies: "Policies and reviews",
  executors: "Executors and callbacks",
  notifications: "Notifications",
  "web push": "Web Push",
  slack: "Slack",
  operations: "Operations",
} as const;
export type EnvDoc = { group: keyof typeof ENV_GROUPS; description: string; defaultNote?: string };
/** A variable's documentation, kept on its schema: docs/configuration.md is generated from it. */
export const doc = (group: EnvDoc["group"], description: string, defaultNote?: string): EnvDoc => ({
  group,
  description,
  ...(defaultNote ? { defaultNote } : {}),
});
export const GENERATED = "generated locally";
