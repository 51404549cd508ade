# The service image: every role of `tdx start`. Without arguments the container runs
# `tdx migrate` (unless TDX_MIGRATE=0) and then `tdx start --role $TDX_ROLE` (default all);
# with arguments it runs `tdx <arguments>`. See docker-compose.yml.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    TDX_API_HOST=0.0.0.0 \
    TDX_DATA_DIR=/var/lib/tdx
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# the operator console's static files (console/build.mjs; esbuild and preact are dependencies)
RUN node console/build.mjs
RUN mkdir -p /var/lib/tdx && chown node:node /var/lib/tdx && chmod +x deploy/docker-entrypoint.sh
USER node
EXPOSE 8080
ENTRYPOINT ["deploy/docker-entrypoint.sh"]
