// For a test file: the running app on one database, with this process's
// environment pointed at the same database and secrets, so lib/ functions
// called by the test (creating a service, reading rows) see what the app sees.
import { inject } from "vitest";
import type { Provider } from "./databases";

export function appFor(provider: Provider) {
  const app = inject("apps").find((a) => a.provider === provider);
  if (!app) return null;
  Object.assign(process.env, app.env);
  return app;
}
