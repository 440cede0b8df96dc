import type { NextConfig } from "next";

const config: NextConfig = {
  // Native module: loaded by Node at run time, never bundled.
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg"],
  poweredByHeader: false,
  experimental: {
    // forbidden() renders app/forbidden.tsx with status 403.
    authInterrupts: true,
  },
};

export default config;
