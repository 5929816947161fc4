"""The real CLI against a real model, Gemma 3 270M (a test fixture, not a recommendation), served by
llama-cpp-python's server and by llama.cpp's own llama-server. The assertions are on mechanics and
on the quality floor, never on the model's wording: what was negotiated, how many requests each
path took, what was stored.

Here: a server killed while it writes a reply, on a server of the test's own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.llama_server import FAMILIES, CountingProxy

from commit_digest.models import AnalysisStatus
from tests.llm_real.conftest import started
from tests.llm_real.real_cli import (
    TINY,
    llm_attempts,
    remember_profile,
    report,
    run_cli,
    store_sample,
    stored_records,
    write_config,
)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_server_killed_mid_run_leaves_a_failure_and_the_next_run_completes(
    installed: None, tmp_path: Path, family: str
) -> None:
    folder = tmp_path / "server"
    server = started(folder, family=family)
    cache, config = tmp_path / "cache", write_config(tmp_path, retries=0, max_output_tokens=TINY)
    store_sample(cache, 1)
    # The proxy outlives the server: the restarted one takes the same port.
    with CountingProxy(server.port) as proxy:
        remember_profile(cache, proxy, family)
        env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": proxy.base_url}
        command = [sys.executable, "-m", "commit_digest.cli", "analyze", "-f", str(config), "--cache", str(cache)]
        analyze = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # The marker: the request reached the server; it dies while the model writes the reply.
            assert proxy.wait_for_chat_requests(1, timeout=300), "the request never reached the server"
            server.kill()
            _, errors = analyze.communicate(timeout=300)
        finally:
            if analyze.poll() is None:
                analyze.kill()
        assert analyze.returncode == 1, errors
        ((_, status, error),) = llm_attempts(stored_records(cache))
        assert status is AnalysisStatus.FAILED, error

        restarted = started(folder, family=family, port=server.port)
        try:
            again = run_cli(proxy, config, cache, "analyze")
        finally:
            restarted.kill()
    report(f"{family} after a kill", again, 1, 0)
    assert again.code in (0, 1), again.output
    ((_, status, error),) = llm_attempts(stored_records(cache))
    assert "cannot reach" not in (error or ""), error  # this run's attempt reached the server
    assert 1 <= len(again.requests) <= 2 and 500 not in again.requests
