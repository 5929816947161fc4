#!/usr/bin/env bash
# The folder GitHub Pages publishes: the built site without the build's own state.
#   published-copy.sh SITE_DIR OUT_DIR
# Each language's .commit-digest/ (site/paths.py STATE_DIR: the manifest and summaries the next
# build reuses from) stays in SITE_DIR, which the workflow caches for the next night, and is
# left out of OUT_DIR: it is no page, and published it would count against Pages' 1 GB.
# Hard links, not copies: the folder costs no bytes and no time in proportion to the site.
set -euo pipefail
site=${1:?usage: published-copy.sh SITE_DIR OUT_DIR}
out=${2:?usage: published-copy.sh SITE_DIR OUT_DIR}
if [ ! -f "${site}/index.html" ]; then
  echo "published-copy: ${site}/index.html is missing: the site was not built" >&2
  exit 2
fi
rm -rf "${out}"
cp -al "${site}" "${out}"
find "${out}" -type d -name .commit-digest -prune -exec rm -rf {} +
