#!/usr/bin/env bash
# `npm test`: the whole test suite. Type-check, lint, unit tests, and integration tests against
# the real local stack (started when it is not running, reused when it is). The stack starts in
# the background while type-check, lint and unit tests run (they need no services); the
# integration tests follow the unit tests, once the stack is ready. Runs every
# step, prints each step's time and a summary, and exits non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. deploy/lib.sh

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
order=() # the steps, in the order of the time table; each writes "$results/step.NAME"
step() { # step NAME CMD...: runs CMD, prints and records its status and seconds
  local name=$1 t0=$SECONDS rc=0; shift
  order+=("$name")
  echo "==> $name" >&2
  "$@" || rc=$?
  if [ "$rc" = 0 ]; then
    echo "==> $name: ok ($((SECONDS - t0)) s)" >&2
    echo "ok $((SECONDS - t0))" >"$results/step.$name"
  else
    echo "==> $name: FAILED ($((SECONDS - t0)) s)" >&2
    echo "FAILED $((SECONDS - t0))" >"$results/step.$name"
  fi
}
t_all=$SECONDS

ensure_node || { echo "no Node.js 24 to run on" >&2; exit 1; }
echo "==> node $(node --version) ($(command -v node))" >&2

# The stack boots (downloads on a new machine, JVMs, Cassandra) while the steps that need no
# services run, from here on: `npm ci`, the Debian packages, type-check, lint and unit tests. Its
# probes need the npm packages, so they wait for "$results/deps.ready" (deploy/stack.sh,
# TDX_STACK_DEPS_READY), written once node_modules is installed. Its output goes to a file and
# is shown once the integration step needs it.
stack_t0=$SECONDS
# A stack this run starts uses the tests profile (deploy/stack.sh: C1-compiled, serial-collected
# JVMs); a stack already running is reused as it is.
( TDX_STACK_DEPS_READY=$results/deps.ready TDX_STACK_PROFILE=${TDX_STACK_PROFILE:-tests} bash deploy/stack.sh start >"$results/stack.log" 2>&1; echo $? >"$results/stack.rc"; echo $SECONDS >"$results/stack.end" ) &
stack_pid=$!

# Debian packages the tests need, installed with apt when missing (deploy/apt-install.sh runs
# one install at a time, the stack's included), beside `npm ci`: promtool and prometheus for the
# observability tests (the unit tests need promtool), chromium for the console's browser tests
# (the integration tests only). Each is a step of its own, its output shown when it is awaited.
order+=(prometheus chromium)
( step prometheus bash deploy/observability/ensure-prometheus.sh >"$results/prometheus.log" 2>&1
  step chromium bash deploy/chromium.sh >"$results/chromium.log" 2>&1 >/dev/null ) &
packages_pid=$!
# ... and the Python environments two integration files use (the pyas2lib peer, schemathesis),
# created from PyPI in a fresh clone (about 25 CPU s) or reused: made here, beside `npm ci`,
# rather than inside the integration step. Not a step: a file whose environment cannot be made
# runs its setup again and says why (or skips when PyPI cannot be reached).
( bash scripts/as2-peer/setup.sh >/dev/null; bash scripts/fuzz-api/setup.sh >/dev/null ) >"$results/python.log" 2>&1 &
python_pid=$!

# (on failure the stack's probes stop waiting when $results goes, at exit)
ensure_node_modules || { echo "npm ci failed" >&2; exit 1; }
: >"$results/deps.ready"
# Node keeps the compiled code of the modules it loads (V8's code cache) in one folder, so the
# many Node processes of a run (spawned `tdx` commands and roles, test workers, the type-check
# and the lint) compile each module once: a process that loads the service starts on about
# 0.55 CPU s instead of 0.8 (docs/stack.md).
export NODE_COMPILE_CACHE=${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/node-compile}

# waits until the packages step named $1 has recorded its status (the other may still run)
await_package() {
  while [ ! -e "$results/step.$1" ] && kill -0 "$packages_pid" 2>/dev/null; do sleep 0.2; done
}
await_package prometheus
cat "$results/prometheus.log" >&2
# Type-check (both TypeScript projects) and lint run in the background, in one process
# (scripts/check.mjs: the lint's type-aware rules read the programs the type-check built), beside
# the unit tests and then the integration tests, which need nothing from it; its output follows
# the integration tests'. The unit tests run alone before the integration tests: beside them,
# the unit tests that run a real tool (promtool, a spawned `tdx`) took over their 5 s.
order+=(check)
checks() {
  step check node scripts/check.mjs
}
checks >"$results/checks.log" 2>&1 &
checks_pid=$!
step unit env TEST_MODE=unit npx vitest run --reporter=default --reporter=json --outputFile.json="$results/unit.json"

wait "$packages_pid"
cat "$results/chromium.log" >&2
wait "$python_pid"
cat "$results/python.log" >&2

wait_t0=$SECONDS
echo "==> stack (started in the background)" >&2
wait "$stack_pid"
cat "$results/stack.log" >&2
stack_rc=$(cat "$results/stack.rc" 2>/dev/null || echo 1)
stack_s=$(( $(cat "$results/stack.end" 2>/dev/null || echo $SECONDS) - stack_t0 ))
if [ "$stack_rc" = 0 ]; then
  echo "==> stack: ok ($stack_s s, $((SECONDS - wait_t0)) s of it after the unit tests)" >&2
  order+=(stack); echo "ok $stack_s ($((SECONDS - wait_t0)) s waited)" >"$results/step.stack"
  export_stack_env
  step integration env TEST_MODE=integration npx vitest run --reporter=default --reporter=json --outputFile.json="$results/integration.json"
else
  echo "==> stack: FAILED ($stack_s s)" >&2
  order+=(stack); echo "FAILED $stack_s" >"$results/step.stack"
fi

wait "$checks_pid"
cat "$results/checks.log" >&2

# Each step's time (type-check and lint, the unit tests and the stack start together; the
# integration tests start when the unit tests are done and the stack is ready; check is the
# type-check and the lint and overlaps both test steps).
failed=()
{
  echo "step              status  seconds"
  for name in "${order[@]}"; do
    read -r status secs rest 2>/dev/null <"$results/step.$name" || { status=FAILED secs=?; rest=; }
    [ "$status" = ok ] || failed+=("$name")
    printf '%-17s %-7s %7s %s\n' "$name" "$status" "$secs" "$rest"
  done
  printf '%-17s %-7s %7s\n' total "" "$((SECONDS - t_all))"
} >&2

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
