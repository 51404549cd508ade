#!/usr/bin/env bash
# Applies the demo configuration to a demo organization and prints a standard API key and the
# operator console's address that signs in with it (/console#key=...).
# The organization id is kept in $TDX_DATA_DIR/demo-org-id (default .data), so running this
# again reuses the organization and the apply changes nothing. Needs the stack up and
# `npx tdx migrate` run.
#
# The demo's SFTP connections take their user, key, host and port from .stack/env (SFTP_*;
# variables already set win) and use folders relative to the stack sshd's login folder
# ($SFTP_ROOT, .stack/sshd/root), which are created here.
#
# The AS2 connection's key pairs (ours, DEMOCORP, and the demo partner's, GADGETAS2, whose side
# the bundled pyas2lib peer plays) are made once by as2-keys.sh (`tdx as2 keygen`) into
# $TDX_DATA_DIR/demo-as2 (ignored by git; no key is kept in the repository) and reused after.
set -euo pipefail
cd "$(dirname "$0")/../.."
. deploy/lib.sh
export_stack_env
if [[ -n "${SFTP_ROOT:-}" ]]; then
  for partner in acme globex; do
    mkdir -p "$SFTP_ROOT/$partner/inbox" "$SFTP_ROOT/$partner/outbox"
  done
else
  echo "[demo] SFTP_ROOT is not set: create acme/{inbox,outbox} and globex/{inbox,outbox} in the SFTP user's login folder yourself" >&2
fi
data="${TDX_DATA_DIR:-.data}"
mkdir -p "$data"
eval "$(bash deploy/demo/as2-keys.sh "$data/demo-as2")"
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
# the operator console signs in from the fragment and removes the key from the address bar
echo "console: ${TDX_PUBLIC_URL:-http://${TDX_API_HOST:-127.0.0.1}:${TDX_API_PORT:-8080}}/console#key=$key"
