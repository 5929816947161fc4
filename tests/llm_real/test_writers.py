"""The real CLI against a real model, Gemma 3 270M (a test fixture, not a recommendation), served by
llama-cpp-python's server and by llama.cpp's own llama-server. The assertions are on mechanics and
on the quality floor, never on the model's wording: what was negotiated, how many requests each
path took, what was stored.

Here: the other writers, translation, a week's narrative and a day's brief. The longest test comes
first: xdist hands a worker its next file once two tests of this one are left, to wait behind them.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest
from benchmarks.llama_server import FAMILIES, LlamaServer

from commit_digest.analysis.quality_floor import floor_problem, reads_as_prose
from commit_digest.store.analysis_store import AnalysisStore
from tests.llm_real.real_cli import (
    SERVER_FIXTURES,
    TINY,
    WHOLE,
    remember_profile,
    report,
    run_cli,
    seed_ok,
    store_sample,
    write_config,
)


# One family: each costs a real model's whole reply, and the briefing path is the same for both.
@pytest.mark.parametrize("family", ["llama.cpp"])
def test_brief_one_day_with_the_real_model_and_a_second_run_sends_nothing(
    request: pytest.FixtureRequest, tmp_path: Path, family: str
) -> None:
    """The whole day's brief of the newest demo day, written by the real model whole: stored only
    above the brief's floor (every citation a commit of that day), and a second run asks again only
    when the first stored nothing."""
    llama_server: LlamaServer = request.getfixturevalue(SERVER_FIXTURES[family])
    cache, config = tmp_path / "cache", write_config(tmp_path, max_output_tokens=WHOLE)
    records = store_sample(cache, 12)
    remember_profile(cache, llama_server, family)
    offline = run_cli(llama_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    day = records[-1].commit.committed_at.astimezone(UTC).date()
    of_the_day = {r.commit.short_sha for r in records if r.commit.committed_at.astimezone(UTC).date() == day}
    first = run_cli(llama_server, config, cache, "brief", "--day", day.isoformat(), "--limit", "1")
    report(f"{family} brief", first, len(of_the_day), int(first.code == 0))
    print(*(line for line in first.output.splitlines() if ": failed: " in line or "briefed" in line), sep="\n")
    assert first.code in (0, 1), first.output
    assert 1 <= len(first.requests) <= 2 and 500 not in first.requests
    with AnalysisStore(cache) as store:
        briefs = [item for item in store.briefs() if item.day == day]
    assert bool(briefs) == (first.code == 0), first.output
    for item in briefs:
        cited = {sha for sentences in item.texts.values() for sentence in sentences for sha in sentence.commits}
        assert cited <= of_the_day and reads_as_prose(" ".join(s.text for s in item.sentences("en")), "en")
    # Only whether the second run asks matters, not what it is answered: a tiny output limit (what
    # decides asking is the day's analyses, not the settings) spares a second whole reply.
    config = write_config(tmp_path, max_output_tokens=TINY)
    second = run_cli(llama_server, config, cache, "brief", "--day", day.isoformat(), "--limit", "1")
    assert (second.requests == []) == (first.code == 0), second.output


@pytest.mark.parametrize("family", FAMILIES)
def test_translate_one_analysis_and_narrate_one_week(
    request: pytest.FixtureRequest, tmp_path: Path, family: str
) -> None:
    llama_server: LlamaServer = request.getfixturevalue(SERVER_FIXTURES[family])
    cache, config = tmp_path / "cache", write_config(tmp_path, languages="[en, zh]", max_output_tokens=TINY)
    # The newest demo day's commits: a week with enough analysed commits for a narrative.
    record = store_sample(cache, 12)[-1]
    remember_profile(cache, llama_server, family)
    # The analysis to translate: one the offline rules wrote, stored as if the LLM had (translate
    # words LLM analyses; the offline ones are worded by the rules in each language).
    offline = run_cli(llama_server, config, cache, "analyze", "--offline")
    assert offline.code == 0 and offline.requests == [], offline.output
    seed_ok(cache, record)
    translated = run_cli(llama_server, config, cache, "translate", "--limit", "1")
    report(f"{family} translate", translated, 1, int(translated.code == 0))
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
    narrated = run_cli(llama_server, config, cache, "narrate", "--week", week, "--limit", "1")
    report(f"{family} narrate", narrated, 1, int(narrated.code == 0))
    assert narrated.code in (0, 1), narrated.output
    assert 1 <= len(narrated.requests) <= 2 and 500 not in narrated.requests
    with AnalysisStore(cache) as store:
        narratives = [item for item in store.narratives() if item.week == week]
    # Stored exactly when the run says so, and then above the floor in every language.
    assert bool(narratives) == (narrated.code == 0), narrated.output
    assert all(reads_as_prose(text, code) for item in narratives for code, text in item.texts.items())
