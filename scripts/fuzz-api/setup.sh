#!/usr/bin/env bash
# Creates (or reuses) the virtual environment of the API fuzzer: schemathesis and its
# dependencies from PyPI, pinned in requirements.txt. Rebuilt only when requirements.txt, this
# script or the Python version change (a stamp file holds their digest).
#
#   bash scripts/fuzz-api/setup.sh        # prints the path of the schemathesis command
#
# Environment: TDX_FUZZ_VENV (default .tools/schemathesis, ignored by git), PYTHON (default
# python3). Exit status 3: PyPI could not be reached; 1: any other failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${TDX_FUZZ_VENV:-$root/.tools/schemathesis}
python=${PYTHON:-python3}

command -v "$python" >/dev/null || { echo "fuzz-api: $python not found (Python 3.10 or later is needed)" >&2; exit 1; }
pyver=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
stamp=$(cat "$here/requirements.txt" "$here/setup.sh" <(echo "$pyver") | sha256sum | cut -c1-16)

if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ] && [ -x "$venv/bin/schemathesis" ]; then
  echo "$venv/bin/schemathesis"
  exit 0
fi

echo "fuzz-api: creating $venv (Python $pyver, schemathesis from PyPI)" >&2
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
    echo "fuzz-api: PyPI cannot be reached; schemathesis is unavailable" >&2
    exit 3
  fi
  echo "fuzz-api: pip install failed" >&2
  exit 1
fi
"$venv/bin/schemathesis" --version >&2 || { echo "fuzz-api: schemathesis does not run after installation" >&2; rm -rf "$venv"; exit 1; }
echo "$stamp" >"$venv/.stamp"
echo "fuzz-api: ready" >&2
echo "$venv/bin/schemathesis"
