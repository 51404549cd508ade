#!/usr/bin/env bash
# `npm start`: everything needed to run the service on this machine, in one command.
#   Node 24 (deploy/lib.sh ensure_node) -> npm dependencies -> local stack (deploy/stack.sh) -> `tdx migrate` -> operator key
#   for secrets (.data/secret-keys, once) -> demo organization ->
#   `tdx start --role all` in the foreground (Ctrl-C stops the service; the stack keeps running,
#   `npm run stack stop` stops it).
# Roles: TDX_ROLES (default all). Skip the demo organization with TDX_DEMO=0.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/lib.sh

ensure_node
ensure_node_modules
bash deploy/stack.sh start
export_stack_env

node bin/tdx.mjs migrate

# The operator key that encrypts partners' secrets at rest (docs/secrets.md). Without
# TDX_SECRETS_KEYS or TDX_SECRETS_KEY_FILE, a key of this machine is generated once into
# .data/secret-keys (git-ignored, mode 600): a development key, never one for production.
if [ -z "${TDX_SECRETS_KEYS:-}" ] && [ -z "${TDX_SECRETS_KEY_FILE:-}" ]; then
  node bin/tdx.mjs admin secrets keygen --if-missing
fi

# Demo organization: deploy/demo/apply-demo.sh creates it once (its id is kept in .data),
# applies deploy/demo/config.yaml and prints a standard API key and the console's URL with it.
if [ "${TDX_DEMO:-1}" != 0 ] && [ -f deploy/demo/apply-demo.sh ]; then
  bash deploy/demo/apply-demo.sh || echo "[start] the demo organization could not be set up (see above); the service starts anyway" >&2
fi

host=${TDX_API_HOST:-127.0.0.1}
port=${TDX_API_PORT:-8080}
echo "[start] API: ${TDX_PUBLIC_URL:-http://$host:$port} (GET /healthz, /readyz, /platform/...); operator console: ${TDX_PUBLIC_URL:-http://$host:$port}/console" >&2
roles=${TDX_ROLES:-all}
if [ "${TDX_METRICS:-on}" = off ]; then
  echo "[start] Metrics: off (TDX_METRICS=off)" >&2
elif [[ ",$roles," == *",all,"* || ",$roles," == *",api,"* ]]; then
  echo "[start] Metrics (Prometheus): http://$host:$port/metrics${TDX_METRICS_TOKEN:+ (bearer token required)}; scrape config, alerts and dashboard in deploy/observability (docs/observability.md)" >&2
else
  echo "[start] Metrics (Prometheus): http://${TDX_METRICS_HOST:-$host}:${TDX_METRICS_PORT:-9464}/metrics${TDX_METRICS_TOKEN:+ (bearer token required)}; see docs/observability.md" >&2
fi
# the service processes' Node flags (deploy/service-node-flags)
mapfile -t node_flags < <(grep -v '^[[:space:]]*\(#\|$\)' deploy/service-node-flags)
exec node "${node_flags[@]}" bin/tdx.mjs start --role "${TDX_ROLES:-all}"
