#!/usr/bin/env bash
# Makes sure Debian's `chromium` package is installed (the browser the console's tests drive
# through playwright-core; Playwright's own browser download is not used). Installs it with
# apt-get when /usr/bin/chromium (or $TDX_CHROMIUM) is missing, and prints the executable's path.
set -euo pipefail
exe=${TDX_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$exe" ]; then
  command -v apt-get >/dev/null 2>&1 || { echo "[chromium] missing $exe; install Debian's chromium package" >&2; exit 1; }
  SUDO=""
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
  echo "[chromium] installing Debian's chromium package" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2 \
    || { $SUDO apt-get update -q >&2 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2; } \
    || { echo "[chromium] could not install chromium" >&2; exit 1; }
fi
echo "$exe"
