#!/bin/sh
# Container entry point (Dockerfile). With arguments: `tdx <arguments>`. Without: `tdx migrate`
# (skipped when TDX_MIGRATE=0, e.g. when a one-shot migrate service ran it) and then
# `tdx start --role $TDX_ROLE` (default all). `tdx start` runs with the service processes' Node
# flags (deploy/service-node-flags: one per line, none with a space in it; none is fine).
set -e
if [ "$#" -eq 0 ]; then
  if [ "${TDX_MIGRATE:-1}" != 0 ]; then
    node bin/tdx.mjs migrate
  fi
  set -- start --role "${TDX_ROLE:-all}"
fi
node_flags=
if [ "$1" = start ]; then
  node_flags=$(grep -v '^[[:space:]]*\(#\|$\)' deploy/service-node-flags || true)
fi
# shellcheck disable=SC2086 # one word per flag
exec node $node_flags bin/tdx.mjs "$@"
