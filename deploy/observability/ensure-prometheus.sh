#!/usr/bin/env bash
# Installs Debian's `prometheus` package (the prometheus server and promtool) when promtool is
# missing. `npm test` (deploy/test.sh) runs it before the unit tests, which check the scrape
# configuration and the alert rules with promtool; the observability integration test starts
# the server. Prints nothing when both are already there.
set -euo pipefail
if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then exit 0; fi
echo "[observability] installing Debian's prometheus package (prometheus, promtool)" >&2
# The package's post-install would start a system service; tests start their own server, so a
# temporary policy-rc.d (when the machine has none) keeps the service from starting.
if [ ! -e /usr/sbin/policy-rc.d ] && [ -w /usr/sbin ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
bash "$(dirname "$0")/../apt-install.sh" prometheus
command -v promtool >/dev/null 2>&1 || { echo "promtool is still missing after installing prometheus" >&2; exit 1; }
