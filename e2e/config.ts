// Shared settings of the browser test run (e2e/settings.mjs over e2e/e2e.json,
// also read by the .mjs launchers). Loopback names use "localhost" everywhere:
// Next rewrites 127.0.0.1 to localhost in req.url, and a mismatch breaks the
// OIDC redirect_uri check.
export { E2E } from "./settings.mjs";
