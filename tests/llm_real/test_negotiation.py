"""The real CLI against a real model, Gemma 3 270M (a test fixture, not a recommendation), served by
llama-cpp-python's server and by llama.cpp's own llama-server. The assertions are on mechanics and
on the quality floor, never on the model's wording: what was negotiated, how many requests each
path took, what was stored.

Here: what a run finds out about each server (the reply form, where the instructions go), the
cut-off path, a second run that asks only for what failed, and whole replies held to the floor.
The longest test comes first: xdist hands a worker its next file once two tests of this one are
left, to wait behind them.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.llama_server import MODEL_NAME, LlamaServer

from commit_digest.analysis.prompt import PROMPT_CANARY
from commit_digest.analysis.quality_floor import floor_problem
from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.server_profiles import profile_key
from tests.llm_real.real_cli import (
    NEGOTIATED,
    NEGOTIATED_LLAMA_CPP,
    TINY,
    WHOLE,
    learned,
    llm_attempts,
    remember_profile,
    report,
    run_cli,
    seed_ok,
    store_sample,
    stored_records,
    write_config,
)


def test_whole_replies_of_the_real_model_are_stored_only_above_the_floor(
    llama_cpp_server: LlamaServer, tmp_path: Path
) -> None:
    """A budget the model can close its JSON in (llama-server writes about 45 tokens a second
    here): whatever it wrote is stored as ok only above the floor, else failed with the reason."""
    cache, config = tmp_path / "cache", write_config(tmp_path, max_output_tokens=WHOLE)
    store_sample(cache, 1)
    remember_profile(cache, llama_cpp_server, "llama.cpp")
    run = run_cli(llama_cpp_server, config, cache, "analyze")
    ((record, status, error),) = llm_attempts(stored_records(cache))
    report("llama-server whole replies", run, 1, int(status is AnalysisStatus.OK))
    assert run.code in (0, 1), run.output
    # One reply, then at most a shrunk one (cut off) and one more (invalid or below the floor).
    assert 1 <= len(run.requests) <= 3 and set(run.requests) == {200}, run.requests
    assert run.tokens[1] > TINY * len(run.requests), run.output  # the model wrote, not a probe
    if status is AnalysisStatus.OK:
        assert record.analysis is not None
        assert floor_problem(record.analysis.text(), "en", (PROMPT_CANARY,)) is None
    else:
        assert any(reason in (error or "") for reason in ("below the quality floor", "cut off", "invalid")), error
        assert record.analysis is not None and record.analysis.provenance.analyzer == "offline"


def test_analyze_negotiates_with_the_real_server_and_handles_cut_off_replies(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    """Default settings but a tiny output limit: the server holds replies to the schema with a
    grammar over Gemma's 262k-token vocabulary (seconds a token on 2 busy cores), so every reply
    here is cut off; the negotiation, the system-role check and the cut-off path are the same."""
    cache, config = tmp_path / "cache", write_config(tmp_path, max_output_tokens=TINY)
    store_sample(cache, 2)
    run = run_cli(llama_server, config, cache, "analyze", "--limit", "2")
    attempts = llm_attempts(stored_records(cache))
    ok = [record for record, status, _ in attempts if status is AnalysisStatus.OK]
    report("analyze", run, 2, len(ok))
    assert run.code in (0, 1), run.output
    assert len(attempts) == 2
    # json_schema refused once (HTTP 500, not retried), then json_object with the schema; the first
    # reply's prompt tokens showed the system message dropped, so it was asked again with the
    # instructions in the user message; then at most two requests a commit (a cut-off or invalid
    # reply is asked once more).
    assert run.requests[0] == 500 and run.requests.count(500) == 1, run.requests
    assert 4 <= len(run.requests) <= 2 + 2 * 2, run.requests
    with AnalysisStore(cache) as store:
        assert learned(store.get_meta(profile_key(llama_server.base_url, MODEL_NAME))) == NEGOTIATED
    # No JSON closes in 16 tokens: the server stops at max_tokens (it reads no max_completion_tokens),
    # the reply is asked once more with half the diff, then failed; the text is readable (the key
    # "x" is no secret). The floor on whole replies: test_whole_replies_….
    assert ok == []
    for _, _, error in attempts:
        assert f"cut off at {TINY} output tokens twice" in (error or ""), error
        assert "[redacted]" not in (error or ""), error


def test_llama_server_reads_json_schema_and_a_second_run_asks_only_for_what_failed(
    llama_cpp_server: LlamaServer, tmp_path: Path
) -> None:
    cache, config = tmp_path / "cache", write_config(tmp_path, max_output_tokens=TINY)
    chosen = store_sample(cache, 3)
    offline = run_cli(llama_cpp_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    seeded = {record.commit.sha: seed_ok(cache, record) for record in chosen[:1]}
    with AnalysisStore(cache) as store:  # the other two wait for the LLM, as new commits would
        for record in chosen[1:]:
            store.put(CommitRecord(commit=record.commit))

    first = run_cli(llama_cpp_server, config, cache, "analyze")
    attempts = llm_attempts(stored_records(cache))
    failed = [record for record, status, _ in attempts if status is not AnalysisStatus.OK]
    ok = [record for record, status, _ in attempts if status is AnalysisStatus.OK]
    report("llama-server analyze", first, 2, len(ok) - len(seeded))
    assert first.code in (0, 1), first.output
    # json_schema read on the first request: no refusal, no probe, no system-role retry; each of
    # the two new commits is asked once, and once more when its reply is cut off or invalid.
    assert 500 not in first.requests and set(first.requests) == {200}, first.requests
    assert 2 <= len(first.requests) <= 4, first.requests
    with AnalysisStore(cache) as store:
        assert learned(store.get_meta(profile_key(llama_cpp_server.base_url, MODEL_NAME))) == NEGOTIATED_LLAMA_CPP
        for sha, analysis in seeded.items():
            kept = store.get(chosen[0].commit.repository, sha)
            assert kept is not None and kept.analysis is not None and kept.analysis.model_dump_json() == analysis
    # Only the seeded one is ok: no JSON closes in 16 tokens.
    assert [record.commit.sha for record in ok] == list(seeded) and len(failed) == 2

    second = run_cli(llama_cpp_server, config, cache, "analyze")
    report("llama-server again", second, len(failed), 0)
    assert second.code in (0, 1), second.output
    # Nothing for the ok ones; each failed one asked again, in the remembered form at once.
    assert len(failed) <= len(second.requests) <= 2 * len(failed), second.requests
    assert set(second.requests) <= {200}, second.requests
