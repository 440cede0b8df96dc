import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

// Tests that need no database, no app and no server of their own: the modules
// under lib/, and files named *.unit.test.ts (in test/ and packages/). They
// run in parallel, without the global set-up that starts the apps.
const UNIT = ["lib/**/*.test.ts", "**/*.unit.test.ts"];

// `npm test` runs two Vitest processes side by side (scripts/test.mjs): the
// "sqlite" lane (unit files and every integration file but PostgreSQL's) and
// the "postgresql" lane (PostgreSQL's files and the migrations drift check).
// Without COUNTERSIGN_TEST_LANE one process runs everything.
const lane = process.env.COUNTERSIGN_TEST_LANE;
if (lane && lane !== "sqlite" && lane !== "postgresql") throw new Error("COUNTERSIGN_TEST_LANE must be sqlite or postgresql");
const POSTGRES_LANE = ["**/*.postgresql.test.ts", "test/db/migrations-drift.test.ts"];
const NOT_TESTS = ["**/node_modules/**", "**/*.unit.test.ts"];
// The postgresql lane in three processes of about equal length: the
// hardening and database files (crash, multi-instance, outage: the longest
// single files), the review and notification files, and everything else.
// Unset: the whole lane in one process.
const pgPart = process.env.COUNTERSIGN_TEST_PG_PART;
if (pgPart && !["1", "2", "3"].includes(pgPart)) throw new Error("COUNTERSIGN_TEST_PG_PART must be 1, 2 or 3");
const PG_PARTS = [
  ["test/hardening", "test/db"],
  ["test/reviews", "test/notifications"],
];
const postgresLane = () => {
  const part = Number(pgPart);
  if (part === 1 || part === 2) {
    const dirs = PG_PARTS[part - 1]!;
    const include = ["test/db/migrations-drift.test.ts", ...dirs.map((dir) => `${dir}/**/*.postgresql.test.ts`)];
    return { include: part === 1 ? include : include.slice(1), exclude: NOT_TESTS };
  }
  if (part === 3) return { include: POSTGRES_LANE, exclude: [...NOT_TESTS, ...PG_PARTS.flat().map((dir) => `${dir}/**`)] };
  return { include: POSTGRES_LANE, exclude: NOT_TESTS };
};

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${root}/` },
      // The server-only marker exists to fail client bundles; tests run on the server.
      { find: /^server-only$/, replacement: `${root}/node_modules/server-only/empty.js` },
    ],
  },
  test: {
    environment: "node",
    setupFiles: ["test/setup-env.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      ...(lane === "postgresql" ? [] : [{ extends: true as const, test: { name: "unit", include: UNIT } }]),
      {
        extends: true,
        test: {
          name: "integration",
          ...(lane === "postgresql"
            ? postgresLane()
            : {
                include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
                exclude: lane === "sqlite" ? [...NOT_TESTS, ...POSTGRES_LANE] : NOT_TESTS,
              }),
          globalSetup: ["test/global-setup.ts"],
          // Integration tests share real databases and servers: run files one at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
