# Shared by deploy/start.sh and deploy/test.sh (sourced, not run).

# npm ci when node_modules is missing or does not match package-lock.json. The lock file's
# hash is remembered in node_modules/.tdx-lock-hash after a successful install.
ensure_node_modules() {
  local want have
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  have=$(cat node_modules/.tdx-lock-hash 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  if [ -z "$have" ] && [ -d node_modules ] && npm ls --depth=0 >/dev/null 2>&1; then
    echo "$want" >node_modules/.tdx-lock-hash # installed by other means and complete
    return 0
  fi
  echo "[deps] installing npm dependencies (npm ci)" >&2
  # package-lock.json lists every optional platform package (scripts/complete-lock.mjs), so
  # npm ci accepts it on any machine.
  npm ci --no-audit --no-fund >&2 || return 1
  echo "$want" >node_modules/.tdx-lock-hash
}

# Exports the stack's addresses (.stack/env) for variables the caller did not set itself.
export_stack_env() {
  local file=${TDX_STACK_DIR:-.stack}/env line key
  [ -f "$file" ] || return 0
  while IFS= read -r line; do
    key=${line%%=*}
    if [ -n "$key" ] && [ -z "${!key:-}" ]; then export "$line"; fi
  done <"$file"
  return 0
}
