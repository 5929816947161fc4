#!/usr/bin/env bash
# The deploy test and the nightly workflow's rclone deploy use Debian's rclone; install it when it
# is missing.
# Only the distribution package: never rclone's install script or a downloaded binary.
set -euo pipefail
if command -v rclone >/dev/null 2>&1; then
  exit 0
fi
echo "rclone is missing: installing Debian's rclone" >&2
bash "$(dirname "$0")/install-debian-packages.sh" rclone
