// Before the browser tests: the admin command line's dispatcher
// (scripts/admin/run.ts and the lib/ it imports) bundled once with esbuild
// into one file, which adminCli() loads into a worker thread of its own and
// calls there for each command. The same source as `npm run admin`; what it
// saves is a process start, a transpile and a database connection for each of
// the hundred-odd users, services and policies the tests make (3–3.7 s each
// as a process, milliseconds in the worker). Dependencies stay in node_modules.
import { build } from "esbuild";
import { NODE_BUNDLE } from "../test/helpers/entry-points";
import { E2E } from "./config";

export default async function globalSetup(): Promise<void> {
  await build({ ...NODE_BUNDLE, entryPoints: ["scripts/admin/run.ts"], outfile: E2E.adminCliBundle });
}
