#!/usr/bin/env bash
# The nightly workflow's "Nightly run" step, kept out of the YAML so that a test can run it as
# GitHub does (tests/deploy/test_nightly_rehearsal.py):
#   nightly.sh [CACHE_DIR [DURABLE_DIR [SITE_DIR]]]      (defaults: cache data site)
# Writes `status=N` to $GITHUB_OUTPUT for the later steps: 0 complete, 1 partial (published what
# is stored), anything else failed; exits 0 for 0 and 1 so the publishing steps run.
#
# The repository is mkdocs.yml's (plugins: commit-digest: repository or repositories). The
# DIGEST_REPOSITORY variable, when set, narrows a site of several repositories to one for this
# night; `commit-digest nightly` reads it and says which it uses. Actions gives an unset secret
# or variable as an empty string: every variable here counts as unset when it is empty or blank.
set -euo pipefail
cache=${1:-cache}
durable=${2:-data}
site=${3:-site}

trim() {
  local value=$1
  value=${value#"${value%%[![:space:]]*}"}
  printf '%s' "${value%"${value##*[![:space:]]}"}"
}

site_url=$(trim "${SITE_URL:-}")
if [ -z "${site_url}" ] && [ -n "${GITHUB_REPOSITORY:-}" ]; then
  # The Pages address of this repository: a user or organisation site (OWNER.github.io) is
  # served at the root, any other repository under its name.
  owner=${GITHUB_REPOSITORY%%/*}
  name=${GITHUB_REPOSITORY#*/}
  owner_lower=$(printf '%s' "${owner}" | tr '[:upper:]' '[:lower:]')
  name_lower=$(printf '%s' "${name}" | tr '[:upper:]' '[:lower:]')
  if [ "${name_lower}" = "${owner_lower}.github.io" ]; then
    site_url="https://${owner_lower}.github.io/"
  else
    site_url="https://${owner_lower}.github.io/${name}/"
  fi
fi
if [ -n "${site_url}" ]; then
  export SITE_URL="${site_url}"
else
  unset SITE_URL
fi

set +e
commit-digest nightly --cache "${cache}" --durable-dir "${durable}" --site-dir "${site}"
status=$?
set -e
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "status=${status}" >> "${GITHUB_OUTPUT}"
fi
[ "${status}" -le 1 ]
