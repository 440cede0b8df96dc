// The worker thread behind adminCli() (e2e/helpers.ts): it loads the bundled
// admin dispatcher once, pointed at the e2e app's database, and runs each
// command it is sent, returning the exit code and what the command printed.
import { runAsWorker } from "synckit";

let runAdmin = null;

runAsWorker(async (bundleUrl, env, args) => {
  if (!runAdmin) {
    // Before the first import: lib/env reads the database and data directory from here.
    Object.assign(process.env, env);
    ({ runAdmin } = await import(bundleUrl));
  }
  let stdout = "";
  let stderr = "";
  const code = await runAdmin(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, { keepConnection: true });
  return { code, stdout, stderr };
});
