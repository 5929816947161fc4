#!/usr/bin/env bash
# The durable form of the store lives on its own branch (default: digest-data), checked
# out as a worktree folder. Its history is the audit trail of every analysis ever paid for.
#   data-branch.sh checkout DIR   fetch the branch into DIR (an empty orphan the first time)
#   data-branch.sh push DIR       commit DIR's changes and push them
# Needs GITHUB_TOKEN and GITHUB_REPOSITORY in CI; the token is passed to git through an
# auth header in the environment, never on a command line or in a URL that is logged.
set -euo pipefail
action=${1:?usage: data-branch.sh checkout|push DIR}
dir=${2:?usage: data-branch.sh checkout|push DIR}
branch=${DATA_BRANCH:-digest-data}

auth() {
  if [ -n "${GITHUB_TOKEN:-}" ]; then
    local basic
    basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 | tr -d '\n')
    echo "::add-mask::${basic}" >&2
    GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="http.https://github.com/.extraheader" \
      GIT_CONFIG_VALUE_0="AUTHORIZATION: basic ${basic}" git "$@"
  else
    git "$@"
  fi
}

case "$action" in
  checkout)
    if auth fetch --depth=1 origin "refs/heads/${branch}:refs/remotes/origin/${branch}" 2>/dev/null; then
      git worktree add --force "$dir" "origin/${branch}"
      git -C "$dir" checkout -B "$branch"
    else
      echo "no ${branch} branch yet: starting an empty one" >&2
      git worktree add --force --detach "$dir"
      git -C "$dir" checkout --orphan "$branch"
      git -C "$dir" rm -rf --quiet . || true
    fi
    ;;
  push)
    git -C "$dir" add -A
    if git -C "$dir" diff --cached --quiet; then
      echo "durable data unchanged" >&2
      exit 0
    fi
    git -C "$dir" -c user.name="commit-digest" -c user.email="commit-digest@users.noreply.github.com" \
      commit --quiet -m "digest data $(date -u +%Y-%m-%dT%H:%MZ)"
    (cd "$dir" && auth push origin "HEAD:refs/heads/${branch}")
    ;;
  *)
    echo "unknown action: $action" >&2
    exit 2
    ;;
esac
