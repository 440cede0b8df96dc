# Countersign's production image (docs/operations.md, "Container image").
#
#   docker build -t countersign .        (or podman build --format docker: OCI
#                                         images carry no HEALTHCHECK)
#
# NODE_IMAGE is the base of every stage: a Debian-based Node image of a major
# that package.json's engines allow. The test that builds this file on a
# machine without a registry passes a base it made itself
# (test/container/image.test.ts).
ARG NODE_IMAGE=node:22-bookworm-slim

# Dependencies, every one, with the native module compiled. Only the manifests
# are copied, so this layer is rebuilt only when they change. Install scripts
# run for the packages that need theirs (better-sqlite3's binary, esbuild's
# check); the project's own postinstall runs in the build stage, which has
# the sources, and Prisma's engine download is not needed (driver adapters
# and a WASM schema engine, scripts/db/generate.mjs).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/mcp-gateway/package.json packages/mcp-gateway/
COPY packages/ai-sdk/package.json packages/ai-sdk/
COPY packages/openai-agents/package.json packages/openai-agents/
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild better-sqlite3 esbuild

# The production dependencies alone, from the same compiled tree. npm keeps a
# dev dependency that a production package names as an optional peer (the
# lockfile's "devOptional": TypeScript, Playwright for Next); nothing at run
# time loads them, so they go too, and the command links they leave dangling.
FROM deps AS prod-deps
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && node -e 'const fs = require("node:fs"); for (const [path, p] of Object.entries(require("./package-lock.json").packages)) if (p.devOptional) fs.rmSync(path, { recursive: true, force: true });' \
  && find node_modules/.bin -xtype l -delete

# The build: Prisma clients, the workspace packages, then Next's production
# build. COUNTERSIGN_BUILD_TYPECHECKED=1 skips Next's type check, for a
# caller that has just run it (npm test's types step); unset, it runs. Next's
# own build cache is kept between builds (a cache mount, not in any layer).
FROM deps AS build
ARG COUNTERSIGN_BUILD_TYPECHECKED=""
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN --mount=type=cache,id=countersign-next-cache,target=/app/.next/cache \
  node scripts/db/generate.mjs \
  && node scripts/build-packages.mjs \
  && node node_modules/next/dist/bin/next build \
  && rm -rf node_modules

# What runs, first without the app: the production dependencies, owned by
# root and read-only to the unprivileged user the server runs as; state only
# in /data. A stage of its own, with the image's settings, so that all of it
# stays cached while only the sources change.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    DATABASE_URL=file:/data/countersign.db \
    COUNTERSIGN_DATA_DIR=/data
RUN groupadd --gid 10001 countersign \
  && useradd --uid 10001 --gid countersign --no-create-home --home-dir /data --shell /usr/sbin/nologin countersign \
  && mkdir /data \
  && chown countersign:countersign /data
COPY --from=prod-deps /app/node_modules ./node_modules
USER countersign
VOLUME /data
EXPOSE 3000
# Liveness: /api/health answers without touching the database (docs/operations.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without npm in between: tsx passes SIGTERM on to the launcher,
# which passes it to the server, which finishes its requests and exits.
CMD ["node_modules/.bin/tsx", "--conditions=react-server", "scripts/start.ts"]

# Then the app: the build and the sources `npm start` runs through tsx
# (scripts/start.ts, lib/). COPY writes them as root whatever USER says.
FROM runtime
COPY --from=build /app ./
