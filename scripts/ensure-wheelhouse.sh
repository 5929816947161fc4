#!/usr/bin/env bash
# The clean-install tests (tests/install) run `pip install .` in an empty venv with no index: pip
# reads only this wheelhouse. This fills it once with a wheel of every runtime dependency of
# pyproject.toml (transitively, for this Python) and of the build backend, and is quick when they
# are there. It is filled again when pyproject.toml's dependencies or build requirements, the
# Python, or this script change (the key below).
# Wheels come through pip's ordinary configuration (index, find-links); sdists are built once.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests make their venvs from the interpreter that runs them: .venv's Python when there is one.
if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
WHEELHOUSE=${COMMIT_DIGEST_WHEELHOUSE:-$HOME/.cache/commit-digest/wheelhouse}

# One requirement a line: [build-system] requires, then [project] dependencies.
requirements=$("$PYTHON" - <<'PY'
import tomllib

with open("pyproject.toml", "rb") as file:
    pyproject = tomllib.load(file)
print("\n".join(pyproject["build-system"]["requires"] + pyproject["project"]["dependencies"]))
PY
)
tag=$("$PYTHON" -c 'import platform, sys; print(sys.implementation.cache_tag, platform.machine())')
key=$( { printf '%s\n%s\n' "$requirements" "$tag"; cat "$0"; } | sha256sum | cut -c1-16)

if [ "$(cat "$WHEELHOUSE/.complete" 2>/dev/null)" = "$key" ]; then
  exit 0
fi

echo "filling the offline wheelhouse $WHEELHOUSE for the clean-install tests (key $key)" >&2
mkdir -p "$(dirname "$WHEELHOUSE")"
partial="$WHEELHOUSE.partial.$$"
rm -rf "$partial"
trap 'rm -rf "$partial"' EXIT
mapfile -t requirement_list <<<"$requirements"
# `pip wheel` of the requirements themselves, not of `.`: nothing is built in the working tree.
"$PYTHON" -m pip wheel --quiet --wheel-dir "$partial" "${requirement_list[@]}"
echo "$key" > "$partial/.complete"
rm -rf "$WHEELHOUSE"
mv "$partial" "$WHEELHOUSE"
