// Admin command line (docs/operations.md): `npm run admin -- <command> [--flag value]…`.
// Every command prints one JSON object on stdout and exits 0, or prints an
// error to stderr and exits non-zero. Flags are parsed here and validated by
// the lib/ functions they call, which hold every rule. Commands live in
// scripts/admin/*-commands.ts, one table per area.
import { runAdmin } from "./admin/run";

process.exitCode = await runAdmin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
