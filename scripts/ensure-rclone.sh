#!/usr/bin/env bash
# The deploy test and the nightly workflow's rclone deploy use Debian's rclone; install it when it
# is missing.
# Only the distribution package: never rclone's install script or a downloaded binary.
set -euo pipefail
if command -v rclone >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
echo "rclone is missing: installing Debian's rclone" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends rclone >/dev/null
