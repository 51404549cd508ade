#!/usr/bin/env bash
# npm run fuzz:api: schemathesis against the whole /platform API of a service started over an
# isolated configuration on the running local stack (test/fuzz/api-fuzz.ts says how).
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/lib.sh
ensure_node
export_stack_env
exec npx tsx test/fuzz/api-fuzz.ts
