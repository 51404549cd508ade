#!/usr/bin/env bash
# Makes sure Debian's `chromium` package is installed (the browser the console's tests drive
# through playwright-core; Playwright's own browser download is not used). Installs it with
# apt-get when /usr/bin/chromium (or $TDX_CHROMIUM) is missing, and prints the executable's path.
set -euo pipefail
exe=${TDX_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$exe" ]; then
  echo "[chromium] installing Debian's chromium package" >&2
  bash "$(dirname "$0")/apt-install.sh" chromium || { echo "[chromium] could not install chromium" >&2; exit 1; }
fi
echo "$exe"
