#!/usr/bin/env bash
# Runs a command with the project's Node 24 first on PATH (deploy/lib.sh ensure_node: the
# machine's node when it is a 24, else the one in .tools), e.g.
#   bash deploy/node.sh npx vitest run test/unit/adapters/as2
# npm start and npm test do this themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/lib.sh
ensure_node
[ $# -gt 0 ] || set -- node --version
exec "$@"
