#!/usr/bin/env bash
# The browser tests drive Debian's chromium; install it when it is missing.
# Never downloads a browser build of its own: only the distribution package.
set -euo pipefail
if [ -n "${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 \
  || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
  exit 0
fi
echo "chromium is missing: installing Debian's chromium for the browser tests" >&2
bash "$(dirname "$0")/install-debian-packages.sh" chromium fonts-noto-cjk
