"""The real CLI against a real model: llama-cpp-python's server with Gemma 3 270M (a test fixture,
not a recommendation). The assertions are on mechanics and on the quality floor, never on the
model's wording: what was negotiated, how many requests each path took, what was stored.

One module, so pytest-xdist's loadfile keeps every test here on one worker with one server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import pytest
from benchmarks.llama_server import FAMILIES, MODEL_NAME, CountingProxy, LlamaServer

from commit_digest.analysis.prompt import PROMPT_CANARY, PROMPT_VERSION
from commit_digest.analysis.quality_floor import floor_problem, reads_as_prose
from commit_digest.models import AnalysisStatus, CommitRecord, FileChange, PatchState
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.server_profiles import profile_key
from tests.llm_real.conftest import started

SAMPLE = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl")
# What the first test finds out by negotiating; the later tests start from it as a later run would.
NEGOTIATED = {
    "family": "llama-cpp-python",
    "form": "json_object",
    "system_in_user": True,
    "token_fields": ["max_completion_tokens", "max_tokens"],
}
NEGOTIATED_LLAMA_CPP = {
    "family": "llama.cpp",
    "form": "json_schema",
    # Its built-in gemma template puts the system message at the head of the user turn: kept.
    "system_in_user": False,
    "token_fields": ["max_completion_tokens", "max_tokens"],
}
PROFILES = {"llama-cpp-python": NEGOTIATED, "llama.cpp": NEGOTIATED_LLAMA_CPP}


def learned(profile: object) -> object:
    """A stored profile without the day its form was learned on (that day is today's)."""
    if not isinstance(profile, dict):
        return profile
    assert profile.get("learned_on") == datetime.now(UTC).date().isoformat()
    return {key: value for key, value in profile.items() if key != "learned_on"}
SERVER_FIXTURES = {"llama-cpp-python": "llama_server", "llama.cpp": "llama_cpp_server"}
CONFIG = """site_name: real model
plugins:
  - commit-digest:
      languages: {languages}
      llm:
        model: {model}
        concurrency: 1
        timeout_seconds: 600
        max_retries: {retries}
        retry_backoff_seconds: 0
        max_output_tokens: {max_output_tokens}
"""
# The output limit of the real-model runs: enough to see each path, few enough to run in minutes.
TINY = 16
# Room for a whole reply from the 270M model (most of its replies close within it).
WHOLE = 1000
_TOKENS = re.compile(r"tokens: prompt (\d+) \(cached \d+\), completion (\d+)")


@dataclass(frozen=True)
class Run:
    code: int
    output: str
    seconds: float
    requests: list[int]  # the status of each chat request the server answered during the run

    @property
    def tokens(self) -> tuple[int, int]:
        found = _TOKENS.search(self.output)
        return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def _config(folder: Path, *, languages: str = "[en]", max_output_tokens: int = 1000, retries: int = 4) -> Path:
    path = folder / "mkdocs.yml"
    path.write_text(
        CONFIG.format(languages=languages, model=MODEL_NAME, max_output_tokens=max_output_tokens, retries=retries),
        encoding="utf-8",
    )
    return path


def _cli(server: LlamaServer | CountingProxy, config: Path, cache: Path, *args: str) -> Run:
    """Runs the CLI against ``server`` (or a proxy in front of one), counting its chat requests."""
    # OPENAI_API_KEY=x: what a local server is given; the redaction must leave error texts readable.
    env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": server.base_url}
    before = len(server.chat_statuses())
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "commit_digest.cli", args[0], "-f", str(config), "--cache", str(cache), *args[1:]],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    return Run(done.returncode, done.stdout + done.stderr, time.monotonic() - started, server.chat_statuses()[before:])


def _sample(cache: Path, count: int, *, patch_lines: int = 0) -> list[CommitRecord]:
    """The ``count`` newest demo commits, stored without analyses (with a synthetic patch of
    ``patch_lines`` lines on the first, for a prompt over a small context window)."""
    records = [CommitRecord.model_validate_json(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    chosen = sorted(records, key=lambda record: record.commit.committed_at)[-count:]
    with AnalysisStore(cache) as store:
        for index, record in enumerate(chosen):
            commit = record.commit
            if patch_lines and index == 0:
                body = "\n".join(
                    f"+    scale_{n} = tune_block(size={n}, warps=4)  # kernel tuning" for n in range(patch_lines)
                )
                patch = f"@@ -1,2 +1,{patch_lines + 2} @@\n def tune():\n     pass\n{body}"
                change = FileChange(
                    path="vllm/kernels/tuning.py", additions=patch_lines, patch=patch, patch_state=PatchState.INCLUDED
                )
                commit = commit.model_copy(update={"files": (change,)})
            store.merge(CommitRecord(commit=commit))
    return chosen


def _remember(cache: Path, server: LlamaServer | CountingProxy, family: str = "llama-cpp-python") -> None:
    with AnalysisStore(cache) as store:
        # As an earlier run stored it: learned today (a form learned a week ago is asked upward again).
        profile = {**PROFILES[family], "learned_on": datetime.now(UTC).date().isoformat()}
        store.set_meta(profile_key(server.base_url, MODEL_NAME), profile)


def _seed_ok(cache: Path, record: CommitRecord) -> str:
    """Stores an ok analysis for ``record`` as an earlier run of this model would have (the offline
    rules' wording: the 270M model's own replies do not pass the floor); returns its JSON."""
    with AnalysisStore(cache) as store:
        stored = store.get(record.commit.repository, record.commit.sha)
    assert stored is not None and stored.analysis is not None
    provenance = stored.analysis.provenance.model_copy(
        update={"analyzer": f"llm:{MODEL_NAME}", "prompt_version": PROMPT_VERSION}
    )
    seeded = stored.model_copy(update={"analysis": stored.analysis.model_copy(update={"provenance": provenance})})
    with AnalysisStore(cache) as store:
        store.put(seeded)
    assert seeded.analysis is not None
    return seeded.analysis.model_dump_json()


def _records(cache: Path) -> list[CommitRecord]:
    with AnalysisStore(cache) as store:
        return list(store.records())


def _llm_attempts(records: list[CommitRecord]) -> list[tuple[CommitRecord, AnalysisStatus, str | None]]:
    """Each record's LLM attempt: the stored analysis when it is the LLM's, else the failure beside
    the offline analysis."""
    attempts = []
    for record in records:
        analysis = record.analysis
        if analysis is not None and analysis.provenance.analyzer == f"llm:{MODEL_NAME}":
            attempts.append((record, analysis.provenance.status, analysis.provenance.error))
        elif record.failure is not None:
            attempts.append((record, record.failure.status, record.failure.error))
    return attempts


def _report(name: str, run: Run, commits: int, ok: int) -> None:
    prompt, completion = run.tokens
    line = {
        "test": name,
        "commits": commits,
        "ok": ok,
        "requests": len(run.requests),
        "statuses": run.requests,
        "seconds": round(run.seconds, 1),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }
    print(json.dumps(line))  # shown with -s and in the report of a failing test


def test_analyze_negotiates_with_the_real_server_and_handles_cut_off_replies(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    """Default settings but a tiny output limit: the server holds replies to the schema with a
    grammar over Gemma's 262k-token vocabulary (seconds a token on 2 busy cores), so every reply
    here is cut off; the negotiation, the system-role check and the cut-off path are the same."""
    cache, config = tmp_path / "cache", _config(tmp_path, max_output_tokens=TINY)
    _sample(cache, 2)
    run = _cli(llama_server, config, cache, "analyze", "--limit", "2")
    attempts = _llm_attempts(_records(cache))
    ok = [record for record, status, _ in attempts if status is AnalysisStatus.OK]
    _report("analyze", run, 2, len(ok))
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


def _analyze_in_a_small_window(folder: Path, family: str) -> tuple[Run, str | None]:
    """One commit with a long patch through a server started with a 4,096-token window: the run
    and the commit's failure text (None when ok)."""
    server = started(folder / "server", family=family, n_ctx=4096)
    try:
        cache, config = folder / "cache", _config(folder, max_output_tokens=TINY)
        _sample(cache, 1, patch_lines=160)
        _remember(cache, server, family)
        run = _cli(server, config, cache, "analyze", "--limit", "1")
    finally:
        server.kill()
    ((_record, status, error),) = _llm_attempts(_records(cache))
    _report(f"{family} context", run, 1, int(status is AnalysisStatus.OK))
    return run, error


def test_a_prompt_over_a_small_context_is_shrunk_and_asked_once_more(installed: None, tmp_path: Path) -> None:
    run, error = _analyze_in_a_small_window(tmp_path, "llama-cpp-python")
    assert run.code in (0, 1), run.output
    # The server says its window when refusing: the diff is shrunk to fit and asked once more. Asked
    # as a stream, it drops the connection instead (its 200 logged): the retry asks whole.
    assert run.requests.count(400) == 1, (run.requests, run.output, error)
    assert 2 <= len(run.requests) <= 4 and run.requests[: run.requests.index(400)] in ([], [200])
    assert "maximum context length" not in (error or "")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_server_killed_mid_run_leaves_a_failure_and_the_next_run_completes(
    installed: None, tmp_path: Path, family: str
) -> None:
    folder = tmp_path / "server"
    server = started(folder, family=family)
    cache, config = tmp_path / "cache", _config(tmp_path, retries=0, max_output_tokens=TINY)
    _sample(cache, 1)
    # The proxy outlives the server: the restarted one takes the same port.
    with CountingProxy(server.port) as proxy:
        _remember(cache, proxy, family)
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
        ((_, status, error),) = _llm_attempts(_records(cache))
        assert status is AnalysisStatus.FAILED, error

        restarted = started(folder, family=family, port=server.port)
        try:
            again = _cli(proxy, config, cache, "analyze")
        finally:
            restarted.kill()
    _report(f"{family} after a kill", again, 1, 0)
    assert again.code in (0, 1), again.output
    ((_, status, error),) = _llm_attempts(_records(cache))
    assert "cannot reach" not in (error or ""), error  # this run's attempt reached the server
    assert 1 <= len(again.requests) <= 2 and 500 not in again.requests


@pytest.mark.parametrize("family", FAMILIES)
def test_translate_one_analysis_and_narrate_one_week(
    request: pytest.FixtureRequest, tmp_path: Path, family: str
) -> None:
    llama_server: LlamaServer = request.getfixturevalue(SERVER_FIXTURES[family])
    cache, config = tmp_path / "cache", _config(tmp_path, languages="[en, zh]", max_output_tokens=TINY)
    # The newest demo day's commits: a week with enough analysed commits for a narrative.
    record = _sample(cache, 12)[-1]
    _remember(cache, llama_server, family)
    # The analysis to translate: one the offline rules wrote, stored as if the LLM had (translate
    # words LLM analyses; the offline ones are worded by the rules in each language).
    offline = _cli(llama_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    _seed_ok(cache, record)
    translated = _cli(llama_server, config, cache, "translate", "--limit", "1")
    _report(f"{family} translate", translated, 1, int(translated.code == 0))
    assert translated.code in (0, 1), translated.output
    assert 1 <= len(translated.requests) <= 2 and 500 not in translated.requests
    with AnalysisStore(cache) as store:
        again = store.get(record.commit.repository, record.commit.sha)
        assert again is not None and again.analysis is not None
        # Whatever the model wrote, a stored translation is above the floor; a failed one is not stored.
        assert (translated.code == 0) == ("zh" in again.analysis.languages), translated.output
        worded = again.analysis.in_language("zh")
        if translated.code == 0:
            assert worded is not None and floor_problem(worded.text(), "zh") is None

    week = record.commit.committed_at.strftime("%G-W%V")
    narrated = _cli(llama_server, config, cache, "narrate", "--week", week, "--limit", "1")
    _report(f"{family} narrate", narrated, 1, int(narrated.code == 0))
    assert narrated.code in (0, 1), narrated.output
    assert 1 <= len(narrated.requests) <= 2 and 500 not in narrated.requests
    with AnalysisStore(cache) as store:
        narratives = [item for item in store.narratives() if item.week == week]
    # Stored exactly when the run says so, and then above the floor in every language.
    assert bool(narratives) == (narrated.code == 0), narrated.output
    assert all(reads_as_prose(text, code) for item in narratives for code, text in item.texts.items())


# One family: each costs a real model's whole reply, and the briefing path is the same for both.
@pytest.mark.parametrize("family", ["llama.cpp"])
def test_brief_one_day_with_the_real_model_and_a_second_run_sends_nothing(
    request: pytest.FixtureRequest, tmp_path: Path, family: str
) -> None:
    """The whole day's brief of the newest demo day, written by the real model whole: stored only
    above the brief's floor (every citation a commit of that day), and a second run asks again only
    when the first stored nothing."""
    llama_server: LlamaServer = request.getfixturevalue(SERVER_FIXTURES[family])
    cache, config = tmp_path / "cache", _config(tmp_path, max_output_tokens=WHOLE)
    records = _sample(cache, 12)
    _remember(cache, llama_server, family)
    offline = _cli(llama_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    day = records[-1].commit.committed_at.astimezone(UTC).date()
    of_the_day = {r.commit.short_sha for r in records if r.commit.committed_at.astimezone(UTC).date() == day}
    first = _cli(llama_server, config, cache, "brief", "--day", day.isoformat(), "--limit", "1")
    _report(f"{family} brief", first, len(of_the_day), int(first.code == 0))
    print(*(line for line in first.output.splitlines() if ": failed: " in line or "briefed" in line), sep="\n")
    assert first.code in (0, 1), first.output
    assert 1 <= len(first.requests) <= 2 and 500 not in first.requests
    with AnalysisStore(cache) as store:
        briefs = [item for item in store.briefs() if item.day == day]
    assert bool(briefs) == (first.code == 0), first.output
    for item in briefs:
        cited = {sha for sentences in item.texts.values() for sentence in sentences for sha in sentence.commits}
        assert cited <= of_the_day and reads_as_prose(" ".join(s.text for s in item.sentences("en")), "en")
    second = _cli(llama_server, config, cache, "brief", "--day", day.isoformat(), "--limit", "1")
    assert (second.requests == []) == (first.code == 0), second.output


# -- llama.cpp's own llama-server: the second family ---------------------------------------------


def test_llama_server_reads_json_schema_and_a_second_run_asks_only_for_what_failed(
    llama_cpp_server: LlamaServer, tmp_path: Path
) -> None:
    cache, config = tmp_path / "cache", _config(tmp_path, max_output_tokens=TINY)
    chosen = _sample(cache, 3)
    offline = _cli(llama_cpp_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    seeded = {record.commit.sha: _seed_ok(cache, record) for record in chosen[:1]}
    with AnalysisStore(cache) as store:  # the other two wait for the LLM, as new commits would
        for record in chosen[1:]:
            store.put(CommitRecord(commit=record.commit))

    first = _cli(llama_cpp_server, config, cache, "analyze")
    attempts = _llm_attempts(_records(cache))
    failed = [record for record, status, _ in attempts if status is not AnalysisStatus.OK]
    ok = [record for record, status, _ in attempts if status is AnalysisStatus.OK]
    _report("llama-server analyze", first, 2, len(ok) - len(seeded))
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

    second = _cli(llama_cpp_server, config, cache, "analyze")
    _report("llama-server again", second, len(failed), 0)
    assert second.code in (0, 1), second.output
    # Nothing for the ok ones; each failed one asked again, in the remembered form at once.
    assert len(failed) <= len(second.requests) <= 2 * len(failed), second.requests
    assert set(second.requests) <= {200}, second.requests


def test_llama_server_reports_its_window_and_a_long_prompt_is_shrunk_before_it_is_sent(
    installed: None, tmp_path: Path
) -> None:
    run, error = _analyze_in_a_small_window(tmp_path, "llama.cpp")
    assert run.code in (0, 1), run.output
    # /props said 4096: the diff was cut to fit before the first request. The fit is estimated
    # (characters, not the model's tokens: this patch's digits are a token each), so the server
    # may still refuse it once, saying by how much; then it is shrunk again, never a third time.
    assert "prompt over the 4096-token context" in run.output, run.output
    assert run.requests.count(400) <= 1 and 1 <= len(run.requests) <= 3, run.requests
    assert "context" not in (error or ""), error


def test_whole_replies_of_the_real_model_are_stored_only_above_the_floor(
    llama_cpp_server: LlamaServer, tmp_path: Path
) -> None:
    """A budget the model can close its JSON in (llama-server writes about 45 tokens a second
    here): whatever it wrote is stored as ok only above the floor, else failed with the reason."""
    cache, config = tmp_path / "cache", _config(tmp_path, max_output_tokens=WHOLE)
    _sample(cache, 1)
    _remember(cache, llama_cpp_server, "llama.cpp")
    run = _cli(llama_cpp_server, config, cache, "analyze")
    ((record, status, error),) = _llm_attempts(_records(cache))
    _report("llama-server whole replies", run, 1, int(status is AnalysisStatus.OK))
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
