import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

// Tests that need no database, no app and no server of their own: the modules
// under lib/, and files named *.unit.test.ts (in test/ and packages/). They
// run in parallel, without the global set-up that starts the apps.
const UNIT = ["lib/**/*.test.ts", "**/*.unit.test.ts"];

// `npm test` runs Vitest in lanes side by side (scripts/test.mjs): the
// "sqlite" lane (unit files and every integration file but PostgreSQL's and
// the container's), the "postgresql" lane (PostgreSQL's files and the
// migrations drift check) and the "container" lane (the image built and run
// with podman; no app of the global set-up). Without COUNTERSIGN_TEST_LANE
// one process runs everything.
const lane = process.env.COUNTERSIGN_TEST_LANE;
if (lane && lane !== "sqlite" && lane !== "postgresql" && lane !== "container")
  throw new Error("COUNTERSIGN_TEST_LANE must be sqlite, postgresql or container");
const POSTGRES_LANE = ["**/*.postgresql.test.ts", "test/db/migrations-drift.test.ts"];
const CONTAINER_LANE = ["test/container/**/*.test.ts"];
const NOT_TESTS = ["**/node_modules/**", "**/*.unit.test.ts"];
// The postgresql lane in two processes of about equal length: part 1 the
// hardening and database files (crash, multi-instance, outage: the longest
// single files), the four longest review suites (the authority table, the
// rules in SQL, concurrent votes, requester spellings) and the notification
// suites (two apps each, with SMTP and push servers), part 2 everything else.
// Part 2 had ended 400-800 s after part 1. Unset: the whole lane.
const pgPart = process.env.COUNTERSIGN_TEST_PG_PART;
if (pgPart && pgPart !== "1" && pgPart !== "2") throw new Error("COUNTERSIGN_TEST_PG_PART must be 1 or 2");
const PG_PART_1 = [
  "test/hardening/**",
  "test/db/**",
  "test/reviews/authority-parity*",
  "test/reviews/rules-in-sql*",
  "test/reviews/record-review*",
  "test/reviews/self-review*",
  "test/notifications/**",
];
const postgresLane = () => {
  if (pgPart === "1")
    return {
      include: PG_PART_1.flatMap((dir) =>
        dir.endsWith("*") && !dir.endsWith("**")
          ? [`${dir}.postgresql.test.ts`]
          : POSTGRES_LANE.map((p) => (p.startsWith("**/") ? `${dir}/${p.slice(3)}` : p)),
      ),
      exclude: NOT_TESTS,
    };
  if (pgPart === "2") return { include: POSTGRES_LANE, exclude: [...NOT_TESTS, ...PG_PART_1] };
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
    // `npm test` runs five lanes on two cores, where a test takes two to three
    // times as long as alone: tests that start processes took 20-40 s in a
    // green full run (the machine otherwise idle), and one ran into a 60 s
    // limit in CI.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      ...(lane === "postgresql" || lane === "container"
        ? []
        : [
            {
              extends: true as const,
              // Pure modules: each worker keeps its modules from file to file
              // (isolate: false), which halves the unit files' CPU (45 → 21 s).
              // They pass in any order (--sequence.shuffle).
              test: { name: "unit", include: UNIT, isolate: false },
            },
          ]),
      lane === "container"
        ? { extends: true, test: { name: "container", include: CONTAINER_LANE } }
        : {
            extends: true,
            test: {
              name: "integration",
              ...(lane === "postgresql"
                ? postgresLane()
                : {
                    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
                    exclude: lane === "sqlite" ? [...NOT_TESTS, ...POSTGRES_LANE, ...CONTAINER_LANE] : NOT_TESTS,
                  }),
              globalSetup: ["test/global-setup.ts"],
              // Integration tests share real databases and servers: run files one at a time.
              fileParallelism: false,
              // One worker process for all of them, file after file: a new
              // process per file cost more than most files' tests (a lane took
              // half the time this way). test/start-file-afresh.ts undoes, before
              // each file, what the one before it left in the process.
              isolate: false,
              setupFiles: ["test/setup-env.ts", "test/start-file-afresh.ts"],
            },
          },
    ],
  },
});
