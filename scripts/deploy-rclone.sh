#!/usr/bin/env bash
# Publishes a built site to any rclone remote (S3, Cloudflare R2, GCS, Azure Blob, SFTP, WebDAV):
#   deploy-rclone.sh SITE_DIR [RCLONE_FLAG...]
# DEPLOY_RCLONE_REMOTE names the destination (`r2:bucket/path`, or a plain folder).
# DEPLOY_RCLONE_CONFIG, when set, is a whole rclone.conf: it is written to a private temporary
# file for this one command and removed afterwards, so it is never on a command line or in a log.
# Without it, rclone reads its own configuration (RCLONE_CONFIG_<REMOTE>_<OPTION> variables,
# ~/.config/rclone/rclone.conf).
#
# One `rclone sync`, which exits non-zero on any error that its retries did not cure:
# - --checksum: a page is uploaded only when its content changed. A full build (or a runner whose
#   cache was evicted) writes every page with a fresh modification time; comparing times would
#   upload, or on S3 copy in place, every unchanged page each night.
# - --delete-after: pages the build no longer makes are deleted only once every upload succeeded
#   (rclone skips the deletions after any error), so a night that fails removes nothing.
# - the build's own state folder (.commit-digest/, site/paths.py STATE_DIR) is never a page: it
#   stays off the remote.
set -euo pipefail
site=${1:?usage: deploy-rclone.sh SITE_DIR [RCLONE_FLAG...]}
shift
remote=${DEPLOY_RCLONE_REMOTE:?DEPLOY_RCLONE_REMOTE must name the rclone remote, e.g. r2:bucket/path}

# An empty or half-made folder would make the sync delete the published site.
if [ ! -f "${site}/index.html" ]; then
  echo "deploy-rclone: ${site}/index.html is missing: refusing to sync a site that was not built" >&2
  exit 2
fi
if ! command -v rclone >/dev/null 2>&1; then
  echo "deploy-rclone: rclone is missing: run bash scripts/ensure-rclone.sh" >&2
  exit 127
fi

# In the nightly workflow: the feeds and the sitemap name SITE_URL, else the Pages address.
site_url=${SITE_URL:-}
if [ -n "${GITHUB_ACTIONS:-}" ] && [ -z "${site_url//[[:space:]]/}" ]; then
  echo "::warning::SITE_URL is not set: feeds and the sitemap name the Pages address, not the remote's."
fi

# Actions gives an unset secret as an empty string: empty or blank is no config.
rclone_config=${DEPLOY_RCLONE_CONFIG:-}
if [ -n "${rclone_config//[[:space:]]/}" ]; then
  config=$(mktemp "${TMPDIR:-/tmp}/rclone-XXXXXX.conf") # mode 600
  trap 'rm -f "$config"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  printf '%s\n' "$DEPLOY_RCLONE_CONFIG" >"$config"
  export RCLONE_CONFIG="$config"
fi
unset DEPLOY_RCLONE_CONFIG

# -v logs each page uploaded or deleted: the night's changes, by name, in the run's log.
rclone sync "${site}/" "$remote" \
  --checksum --delete-after --fast-list \
  --exclude ".commit-digest/**" \
  --stats-one-line -v \
  "$@"
