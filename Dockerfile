# Production image of the wishlist service: one image, three commands (docs/deploy.md).
#   web:     node --enable-source-maps build/processes/server/index.js   (what `npm start` runs)
#   worker:  node --max-old-space-size=160 --max-semi-space-size=32 --enable-source-maps build/processes/worker/index.js
#            (what `npm run worker` runs; docs/decisions/051-worker-memory.md)
#   migrate: node --import tsx scripts/prisma.ts migrate deploy   (what `npm run db:migrate` runs), once per release
# Node 24 LTS on Debian 12 (docs/decisions/027-deployment-and-node-lts.md). No registry is reachable on the
# project's machines: scripts/container-smoke.sh builds a base image with the same layout from Debian's
# packages and the official Node binaries, and passes it as NODE_IMAGE.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# --- deps: every dependency, with the tools to compile better-sqlite3 when no prebuilt binary downloads --
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# node-gyp compiles against the headers that come with Node (/usr/local/include/node) instead of
# downloading them.
ENV npm_config_nodedir=/usr/local
# packages/better-sqlite3 picks the better-sqlite3 build for the Node that runs it (decision 037); .npmrc
# installs it as a copy (install-links), like any package.
COPY package.json package-lock.json .npmrc ./
COPY packages ./packages
# The project's postinstall (prisma generate) needs the sources, which are not here yet: scripts off, then
# the native modules package.json allows (`allowScripts`) are built by name.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 msgpackr-extract esbuild

# --- build: Prisma client and Kysely types, the Remix bundle; then the dev dependencies go -----------------
FROM deps AS build
COPY . .
# Generation and the build read the environment schema; the image runs on PostgreSQL (decision 027): a
# PostgreSQL URL that nothing connects to, so no SQLite file is made in the image.
RUN export DATABASE_URL=postgresql://build@127.0.0.1:5432/unused \
 && npm run db:generate \
 && npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime: no compilers, no dev dependencies, not root --------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    STORAGE_DIR=/app/data/files
WORKDIR /app
# The web and worker processes run compiled JavaScript (build/processes, docs/decisions/043-compiled-processes.md);
# tsx runs only the migration script, which reads the app's environment schema (app/, tsconfig.json's `~/` alias).
COPY --from=build --chown=root:root /app/package.json /app/package-lock.json /app/tsconfig.json /app/prisma.config.ts ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/build ./build
COPY --from=build --chown=root:root /app/app ./app
COPY --from=build --chown=root:root /app/prisma ./prisma
COPY --from=build --chown=root:root /app/scripts/prisma.ts ./scripts/prisma.ts
# The code is root's and read-only to the process; only local file storage (STORAGE_DRIVER=local, a
# volume) is writable.
RUN mkdir -p /app/data/files && chown -R node:node /app/data
USER node
EXPOSE 3000
# The web process's liveness (GET /healthz). Readiness (/readyz) is for load balancers; the worker
# overrides this check (compose.yaml). Node's fetch: the slim image has no curl.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT||3000}/healthz`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "build/processes/server/index.js"]
