#!/usr/bin/env bash
# Makes the key pairs of the demo's AS2 connection once, with `tdx as2 keygen`: ours (DEMOCORP)
# and the demo partner's (GADGETAS2, whose side the bundled pyas2lib peer plays), in DIR
# (default $TDX_DATA_DIR/demo-as2, .data/demo-as2; ignored by git, so no key is kept in the
# repository). Existing pairs are reused. Prints the variables deploy/demo/config.yaml reads:
#
#   eval "$(bash deploy/demo/as2-keys.sh)"     # sets DEMO_AS2_* for `tdx config apply`
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:-${TDX_DATA_DIR:-.data}/demo-as2}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
for id in DEMOCORP GADGETAS2; do
  name="$(echo "$id" | tr 'A-Z' 'a-z')"
  if [[ ! -s "$dir/$name.key.pem" || ! -s "$dir/$name.cert.pem" ]]; then
    node bin/tdx.mjs as2 keygen --id "$id" --out "$dir" --force >/dev/null
  fi
done
echo "export DEMO_AS2_PRIVATE_KEY_PATH='$dir/democorp.key.pem'"
echo "export DEMO_AS2_CERTIFICATE_PATH='$dir/democorp.cert.pem'"
echo "export DEMO_AS2_PARTNER_CERTIFICATE_PATH='$dir/gadgetas2.cert.pem'"
