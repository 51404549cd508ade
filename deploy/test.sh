#!/usr/bin/env bash
# `npm test`: the whole test suite. Type-check, lint, unit tests, then integration tests against
# the real local stack (started when it is not running, reused when it is). Runs every step,
# prints a summary, and exits non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. deploy/lib.sh

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
failed=()
step() { # step NAME CMD...
  local name=$1 t0=$SECONDS; shift
  echo "==> $name" >&2
  if "$@"; then
    echo "==> $name: ok ($((SECONDS - t0)) s)" >&2
  else
    echo "==> $name: FAILED ($((SECONDS - t0)) s)" >&2
    failed+=("$name")
  fi
}

ensure_node || { echo "no Node.js 24 to run on" >&2; exit 1; }
echo "==> node $(node --version) ($(command -v node))" >&2
ensure_node_modules || { echo "npm ci failed" >&2; exit 1; }

# promtool and prometheus (Debian's prometheus package) for the observability tests
step prometheus bash deploy/observability/ensure-prometheus.sh
step typecheck npx tsc -p tsconfig.json --noEmit
step typecheck-console npx tsc -p console/tsconfig.json --noEmit
step lint npx eslint --max-warnings 0 .
step unit env TEST_MODE=unit npx vitest run --reporter=default --reporter=json --outputFile.json="$results/unit.json"
step stack bash deploy/stack.sh start
# the console's browser tests drive Debian's chromium (installed here when missing)
step chromium bash deploy/chromium.sh
if [[ " ${failed[*]} " != *" stack "* ]]; then
  export_stack_env
  step integration env TEST_MODE=integration npx vitest run --reporter=default --reporter=json --outputFile.json="$results/integration.json"
fi

# One closing line with the counts of both vitest runs.
read -r passed failedn skipped < <(node -e '
  const fs = require("node:fs");
  let p = 0, f = 0, s = 0;
  for (const file of process.argv.slice(1)) {
    if (!fs.existsSync(file)) continue;
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    p += r.numPassedTests; f += r.numFailedTests || (r.success ? 0 : r.numFailedTestSuites || 1); s += r.numPendingTests + (r.numTodoTests || 0);
  }
  console.log(p, f, s);
' "$results/unit.json" "$results/integration.json")
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" >&2
  [ "$failedn" -gt 0 ] || failedn=${#failed[@]}
fi
echo "tests: $passed passed, $failedn failed, $skipped skipped"
[ ${#failed[@]} -eq 0 ]
