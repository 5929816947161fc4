"""The real CLI against a real model, Gemma 3 270M (a test fixture, not a recommendation), served by
llama-cpp-python's server and by llama.cpp's own llama-server. The assertions are on mechanics and
on the quality floor, never on the model's wording: what was negotiated, how many requests each
path took, what was stored.

Here: a prompt over a server's small context window, on a server started with that window.
"""

from __future__ import annotations

from pathlib import Path

from tests.llm_real.real_cli import (
    analyze_in_a_small_window,
)


def test_a_prompt_over_a_small_context_is_shrunk_and_asked_once_more(installed: None, tmp_path: Path) -> None:
    run, error = analyze_in_a_small_window(tmp_path, "llama-cpp-python")
    assert run.code in (0, 1), run.output
    # The server says its window when refusing: the diff is shrunk to fit and asked once more. Asked
    # as a stream, it drops the connection instead (its 200 logged): the retry asks whole.
    assert run.requests.count(400) == 1, (run.requests, run.output, error)
    assert 2 <= len(run.requests) <= 4 and run.requests[: run.requests.index(400)] in ([], [200])
    assert "maximum context length" not in (error or "")


def test_llama_server_reports_its_window_and_a_long_prompt_is_shrunk_before_it_is_sent(
    installed: None, tmp_path: Path
) -> None:
    run, error = analyze_in_a_small_window(tmp_path, "llama.cpp")
    assert run.code in (0, 1), run.output
    # /props said 4096: the diff was cut to fit before the first request. The fit is estimated
    # (characters, not the model's tokens: this patch's digits are a token each), so the server
    # may still refuse it once, saying by how much; then it is shrunk again, never a third time.
    assert "prompt over the 4096-token context" in run.output, run.output
    assert run.requests.count(400) <= 1 and 1 <= len(run.requests) <= 3, run.requests
    assert "context" not in (error or ""), error
