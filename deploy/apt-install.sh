#!/usr/bin/env bash
# deploy/apt-install.sh PACKAGE...: installs Debian packages with apt-get (without recommends),
# running `apt-get update` first only when the install fails. The project's one way to install a
# Debian package (the stack's Java 17, openssh-server, maven, pip and unzip; prometheus; chromium;
# the pip that fetches Node.js). Installs run one at a time across the scripts that call it, by a
# lock file of their own (`npm test` installs prometheus and chromium while the stack starts,
# which may install packages too; dpkg refuses a second install beside the first).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: deploy/apt-install.sh PACKAGE..." >&2; exit 2; }
command -v apt-get >/dev/null 2>&1 || { echo "[apt] missing $*; install it with your package manager" >&2; exit 1; }
SUDO=()
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); fi
lock=${TMPDIR:-/tmp}/tdx-apt.lock
exec 8>>"$lock"
flock -w 900 8 || { echo "[apt] another install held $lock for 15 minutes" >&2; exit 1; }
apt=(apt-get -o DPkg::Lock::Timeout=600)
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "$@" >&2 \
  || { "${SUDO[@]}" "${apt[@]}" update -q >&2 && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -q --no-install-recommends "$@" >&2; } \
  || { echo "[apt] could not install $*" >&2; exit 1; }
