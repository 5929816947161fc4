"""The real-model tests' server: benchmarks/llama_server.py starts it; nothing here is skipped, a
server that cannot be installed or started fails the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.llama_server import LlamaServer, ServerError, ensure_installed, start_server

# One thread a server: the suite runs on two workers of two cores, and two threads of llama.cpp on
# a busy core wait for each other (see start_server); one is many times faster there. And lean
# servers: the same replies for a fraction of the work.
THREADS = 1


def started(folder: Path, *, family: str = "llama-cpp-python", **options: int) -> LlamaServer:
    try:
        return start_server(folder, family=family, threads=THREADS, lean=True, **options)
    except ServerError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def installed() -> None:
    """Installs the server and the model once (quick when they are there)."""
    try:
        ensure_installed()
    except ServerError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="session")
def llama_server(installed: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    server = started(tmp_path_factory.mktemp("llama"))
    yield server
    server.kill()


@pytest.fixture(scope="session")
def llama_cpp_server(installed: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's own llama-server: the second real server family."""
    server = started(tmp_path_factory.mktemp("llama-cpp"), family="llama.cpp")
    yield server
    server.kill()
