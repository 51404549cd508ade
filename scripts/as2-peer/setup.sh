#!/usr/bin/env bash
# Creates (or reuses) the virtual environment of the AS2 test peer: pyas2lib and its
# dependencies from PyPI, pinned in requirements.txt, plus the oscrypto patch. The environment
# is rebuilt only when requirements.txt, this script, patch_oscrypto.py or the Python version
# change (a stamp file holds their digest), so later runs take well under a second.
#
#   bash scripts/as2-peer/setup.sh        # prints the environment's python on stdout
#
# Environment: TDX_AS2_PEER_VENV (default .tools/as2-peer, ignored by git), PYTHON (default
# python3). Exit status 3: PyPI could not be reached (tests skip on it); 1: any other failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${TDX_AS2_PEER_VENV:-$root/.tools/as2-peer}
python=${PYTHON:-python3}

command -v "$python" >/dev/null || { echo "as2-peer: $python not found (Python 3.9 or later is needed)" >&2; exit 1; }
pyver=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
stamp=$(cat "$here/requirements.txt" "$here/setup.sh" "$here/patch_oscrypto.py" <(echo "$pyver") | sha256sum | cut -c1-16)

if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ] && [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi

echo "as2-peer: creating $venv (Python $pyver, pyas2lib from PyPI)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# wheels only: nothing is compiled, and an unreachable index fails fast
if ! "$venv/bin/pip" install --disable-pip-version-check --no-input --only-binary=:all: --timeout 20 --retries 2 -r "$here/requirements.txt" >"$log" 2>&1; then
  cat "$log" >&2
  rm -rf "$venv"
  if grep -qiE 'NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|Could not fetch URL|ConnectTimeout|ReadTimeout' "$log"; then
    echo "as2-peer: PyPI cannot be reached; the AS2 interoperability peer is unavailable" >&2
    exit 3
  fi
  echo "as2-peer: pip install failed" >&2
  exit 1
fi
"$venv/bin/python" "$here/patch_oscrypto.py" >&2
"$venv/bin/python" -c 'import pyas2lib, oscrypto.asymmetric' || { echo "as2-peer: pyas2lib does not import after installation" >&2; rm -rf "$venv"; exit 1; }
echo "$stamp" >"$venv/.stamp"
echo "as2-peer: ready" >&2
echo "$venv/bin/python"
