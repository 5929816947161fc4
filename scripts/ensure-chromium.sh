#!/usr/bin/env bash
# The browser tests drive Debian's chromium; install it when it is missing.
# Never downloads a browser build of its own: only the distribution package.
set -euo pipefail
if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 \
  || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "chromium is missing: installing Debian's chromium for the browser tests" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk >/dev/null
