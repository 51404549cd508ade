#!/usr/bin/env bash
# Applies the demo configuration to a demo organization and prints a standard API key.
# The organization id is kept in $TDX_DATA_DIR/demo-org-id (default .data), so running this
# again reuses the organization and the apply changes nothing. Needs the stack up and
# `npx tdx migrate` run.
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${TDX_DATA_DIR:-.data}"
mkdir -p "$data"
idfile="$data/demo-org-id"
if [[ -s "$idfile" ]]; then
  org="$(cat "$idfile")"
else
  org="$(node bin/tdx.mjs admin org create "Demo organization")"
  echo "$org" >"$idfile"
fi
node bin/tdx.mjs config apply deploy/demo/config.yaml --org "$org" --author demo >&2
key="$(node bin/tdx.mjs admin key create --org "$org" --kind standard --name demo 2>/dev/null)"
echo "demo organization: $org"
echo "standard API key (shown once): $key"
