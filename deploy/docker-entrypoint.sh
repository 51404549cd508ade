#!/bin/sh
# Container entry point (Dockerfile). With arguments: `tdx <arguments>`. Without: `tdx migrate`
# (skipped when TDX_MIGRATE=0, e.g. when a one-shot migrate service ran it) and then
# `tdx start --role $TDX_ROLE` (default all).
set -e
if [ "$#" -gt 0 ]; then
  exec node bin/tdx.mjs "$@"
fi
if [ "${TDX_MIGRATE:-1}" != 0 ]; then
  node bin/tdx.mjs migrate
fi
exec node bin/tdx.mjs start --role "${TDX_ROLE:-all}"
