import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${root}/` },
      // The server-only marker exists to fail client bundles; tests run on the server.
      { find: /^server-only$/, replacement: `${root}/node_modules/server-only/empty.js` },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "lib/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    environment: "node",
    setupFiles: ["test/setup-env.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Integration tests share real databases and servers: run files one at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
