# The service image: every role of `tdx start`, run from the compiled dist/ on Node 24 with
# production dependencies only, as the unprivileged `node` user. Without arguments the container
# runs `tdx migrate` (unless TDX_MIGRATE=0) and then `tdx start --role $TDX_ROLE` (default all);
# with arguments it runs `tdx <arguments>`. See docker-compose.yml and docs/stack.md
# ("Container image").
#
# Two targets:
#   docker build -t tdx .                      (default, `server`) for a ClickHouse server
#                                              (CLICKHOUSE_URL): no chDB (node_modules 63 MB, not 607)
#   docker build --target embedded -t tdx .    with the embedded ClickHouse engine (chDB), for a
#                                              single container without a ClickHouse server
#
# test/integration/deploy/dockerfile.test.ts performs these stages in a scratch folder (the same
# commands, in this order) and runs the result: keep RUN commands relative to WORKDIR.
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Dependencies: one `npm ci` of every package (TypeScript, esbuild with its platform binary
#    for the operator console, and the production ones), used by the build and, pruned to the
#    production packages, by the images: one install instead of two. `npm ci` runs no scripts
#    (the package's `prepare` would build before the sources are here); the build is its own
#    step. --prefer-offline: npm's cache, when there is one, is used without revalidation.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --prefer-offline --no-audit --no-fund

# 2. Build: src/ compiled to dist/ and the console built into dist/console.
FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY console ./console
RUN node bin/build.mjs && test -s dist/.built && test -f dist/cli/tdx.js

# 3. Production dependencies: the install without its dev packages (no install scripts: ssh2's
#    optional native crypto falls back to its JavaScript implementation, as it does wherever no
#    compiler is installed).
FROM deps AS deps-embedded
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# ... and the same without chDB (the engine is loaded only when CLICKHOUSE_URL is unset).
FROM deps-embedded AS deps-server
RUN rm -rf node_modules/chdb node_modules/@chdb

# 4. The runtime: the compiled code, the files it reads (topic and schema definitions) and the
#    entry point. Data (the embedded engine's, when used) goes to the node user's home.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TDX_API_HOST=0.0.0.0 \
    TDX_LOG_FORMAT=json \
    TDX_DATA_DIR=/home/node/tdx-data
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY topics ./topics
COPY schemas ./schemas
COPY deploy/docker-entrypoint.sh deploy/service-node-flags ./deploy/
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "bin/healthcheck.mjs"]
ENTRYPOINT ["/app/deploy/docker-entrypoint.sh"]

FROM runtime AS embedded
COPY --from=deps-embedded /app/node_modules ./node_modules

# The default target (last): for a ClickHouse server.
FROM runtime AS server
COPY --from=deps-server /app/node_modules ./node_modules
