import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./scripts/server/security-headers.mjs";

const config: NextConfig = {
  // A separate build directory lets a test run or benchmark build without
  // disturbing a server that is serving the default one.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  // Native module: loaded by Node at run time, never bundled. prom-client too: one
  // copy per process, whose process metrics (GC, event loop) are set up once.
  serverExternalPackages: [
    "better-sqlite3",
    "pg",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-logs-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/instrumentation",
    "@prisma/instrumentation",
  ],
  poweredByHeader: false,
  // `npm test` type-checks (route types and tsc) just before it builds; checking again here would only repeat it.
  typescript: { ignoreBuildErrors: process.env.COUNTERSIGN_BUILD_TYPECHECKED === "1" },
  // Security headers on every response (scripts/server/security-headers.mjs; pages also get a nonce-based CSP from proxy.ts).
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [...SECURITY_HEADERS],
      },
    ];
  },
  experimental: {
    // forbidden() renders app/forbidden.tsx with status 403.
    authInterrupts: true,
  },
};

export default config;
