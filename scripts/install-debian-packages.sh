#!/usr/bin/env bash
# Installs Debian packages for the tests and the workflows (sudo when not root): only distribution
# packages, never a downloaded binary or an install script.
set -euo pipefail
if [ "$(id -u)" != "0" ]; then
  SUDO=sudo
else
  SUDO=
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
