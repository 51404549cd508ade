#!/usr/bin/env bash
# `npm run bench:pipeline`: starts (or reuses) the local stack, then runs bench/pipeline/run.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/lib.sh
ensure_node
ensure_node_modules
bash deploy/stack.sh start >&2
export_stack_env
exec npx tsx bench/pipeline/run.ts
