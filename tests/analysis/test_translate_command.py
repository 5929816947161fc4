"""`commit-digest translate` end to end: the CLI, the real SDK, the scripted server, a real store.
Every request is counted: a translation is paid for once, stored as it arrives, and a failure is
retried by the next run only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from commit_digest.analysis.translate_pass import TRANSLATE_BATCHES_META, translation_lease_name
from commit_digest.analysis.translation import TRANSLATE_CANARY, TRANSLATE_PROMPT_VERSION
from commit_digest.cli import main
from commit_digest.models import Analysis, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.leases import Lease
from tests.analysis.bilingual_replies import (
    ENGLISH_MARK,
    language_responder,
    source_of,
    stored_analysis,
    translated,
)
from tests.analysis.conftest import make_commit, write_config
from tests.fakes.openai_server import FakeOpenAIServer, completion, error

REPOSITORY = "vllm-project/vllm"
CONFIG = """site_name: translations
plugins:
  - commit-digest:
      languages: [zh, en]
      llm:
        retry_backoff_seconds: 0
        timeout_seconds: 20
        prices: {m-1: {prompt: 1.0, completion: 4.0}}
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_config(tmp_path, CONFIG)


@pytest.fixture(autouse=True)
def _bilingual_replies(server: FakeOpenAIServer) -> None:
    server.responder = language_responder  # type: ignore[assignment]


def _store(cache_dir: Path, analyses: dict[int, Analysis | None]) -> list[str]:
    """Commits numbered as the keys, with those analyses; their shas in that order."""
    with AnalysisStore(cache_dir) as store:
        for number, analysis in analyses.items():
            store.merge(CommitRecord(commit=make_commit(number), analysis=analysis))
    return [make_commit(number).sha for number in analyses]


def _analyses(cache_dir: Path) -> dict[str, Analysis | None]:
    with AnalysisStore(cache_dir) as store:
        return {record.commit.sha: record.analysis for record in store.records()}


def _translate(cache_dir: Path, config: Path, *extra: str) -> int:
    return main(["translate", "-f", str(config), "--cache", str(cache_dir), *extra])


def _translated_shas(server: FakeOpenAIServer) -> list[str]:
    return [request.message("user").split(f"Commit: {REPOSITORY}@")[1][:40] for request in server.chat_requests]


def test_each_analysis_lacking_english_costs_one_request_and_a_second_run_sends_nothing(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = _store(cache_dir, {number: stored_analysis(minutes=number) for number in range(1, 5)})
    offline, empty = _store(cache_dir, {5: stored_analysis("offline"), 6: None})
    assert _translate(cache_dir, config, "--concurrency", "2") == 0
    assert len(server.chat_requests) == 4
    assert sorted(_translated_shas(server)) == sorted(shas)
    assert "translated 4 of 4 analyses" in capsys.readouterr().err

    request = server.chat_requests[0]
    body = request.json
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["json_schema"]["strict"] is True
    assert schema["required"] == ["summary", "impact_scope", "insights", "risks", "recommendations", "conclusion"]
    assert schema["additionalProperties"] is False
    system = request.message("system")
    assert "into English" in system and TRANSLATE_CANARY in system and "修复" not in system
    assert source_of(body)["summary"][0].startswith("修复了调度器的问题")  # the data sits between the markers

    analyses = _analyses(cache_dir)
    for sha in shas:
        analysis = analyses[sha]
        assert analysis is not None and analysis.languages == ("zh", "en")
        english = analysis.translations["en"]
        assert english.summary[0] == f"{ENGLISH_MARK} 修复了调度器的问题。" and len(english.summary) == 2
        assert english.impact_scope[0].note == "" and english.insights.architecture is None
        provenance = english.provenance
        assert provenance is not None and provenance.analyzer == "llm:gpt-4o-mini"
        assert provenance.language == "en" and provenance.prompt_version == TRANSLATE_PROMPT_VERSION
        assert provenance.usage is not None and provenance.usage.prompt_tokens > 0
        assert analysis.summary == stored_analysis().summary  # the analysis itself is untouched
    assert analyses[offline] == stored_analysis("offline") and analyses[empty] is None

    server.reset()
    assert _translate(cache_dir, config) == 0
    assert server.chat_requests == []


def test_a_failing_translation_fails_alone_and_is_the_only_one_asked_again(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = _store(cache_dir, {number: stored_analysis(minutes=number) for number in range(10, 14)})
    broken, refused = shas[1], shas[2]
    dropped = json.dumps({**translated(source_of_stored()), "summary": ["EN only one item"]}, ensure_ascii=False)
    server.script(broken, completion(dropped), completion("{not json"))
    server.script(refused, completion(None, refusal="No."))
    assert _translate(cache_dir, config) == 1
    assert len(server.chat_requests) == 2 + 2 + 1  # the broken one was asked twice
    output = capsys.readouterr().err
    assert "2 ok" in output and "1 failed" in output and "1 refused" in output
    assert f"{broken[:12]} into en: failed: invalid reply" in output
    analyses = _analyses(cache_dir)
    assert [analyses[sha].languages for sha in shas] == [  # type: ignore[union-attr]
        ("zh", "en"),
        ("zh",),
        ("zh",),
        ("zh", "en"),
    ]

    server.reset()
    assert _translate(cache_dir, config) == 0
    assert sorted(_translated_shas(server)) == sorted([broken, refused])
    assert all(analysis.languages == ("zh", "en") for analysis in _analyses(cache_dir).values())  # type: ignore[union-attr]


def source_of_stored() -> dict[str, object]:
    return json.loads(stored_analysis().text().model_dump_json(exclude={"provenance"}))


def test_a_translation_that_drops_or_adds_a_section_is_invalid(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    (sha,) = _store(cache_dir, {20: stored_analysis()})
    source = translated(source_of_stored())
    bad = [
        {**source, "risks": []},
        {**source, "insights": {**source["insights"], "security": "EN invented"}},  # type: ignore[dict-item]
        {**source, "conclusion": ""},
        {**source, "verdict": "ship it"},
    ]
    for reply in bad:
        server.reset()
        server.script(sha, completion(json.dumps(reply, ensure_ascii=False)), completion(json.dumps(reply)))
        assert _translate(cache_dir, config) == 1, reply
        assert len(server.chat_requests) == 2
    assert _analyses(cache_dir)[sha].languages == ("zh",)  # type: ignore[union-attr]


def test_a_reply_echoing_the_instructions_and_server_errors_store_nothing(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    echo, down = _store(cache_dir, {30: stored_analysis(), 31: stored_analysis()})
    echoed = json.dumps({**translated(source_of_stored()), "conclusion": f"marker {TRANSLATE_CANARY}"})
    server.script(echo, completion(echoed), completion(echoed))
    server.script(down, *[error(503)] * 5)  # max_retries 4: five attempts, then the commit fails
    assert _translate(cache_dir, config) == 1
    assert len(server.chat_requests) == 2 + 5
    analyses = _analyses(cache_dir)
    assert analyses[echo].languages == analyses[down].languages == ("zh",)  # type: ignore[union-attr]
    assert TRANSLATE_CANARY not in json.dumps([a.model_dump(mode="json") for a in analyses.values() if a])


def test_legacy_reports_are_translated_too_and_language_limit_and_days_select(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    legacy, newer, english = _store(
        cache_dir,
        {
            40: stored_analysis("legacy:2026-01-08.md"),
            41: stored_analysis(minutes=1),
            42: stored_analysis(language="en", summary="Fixes the scheduler."),
        },
    )
    # --language zh: only the English analysis lacks Chinese.
    assert _translate(cache_dir, config, "--language", "zh") == 0
    assert _translated_shas(server) == [english]
    assert "into Simplified Chinese" in server.chat_requests[0].message("system")
    assert _analyses(cache_dir)[english].languages == ("en", "zh")  # type: ignore[union-attr]

    server.reset()
    assert _translate(cache_dir, config, "--limit", "1") == 0
    assert _translated_shas(server) == [newer]  # the newest commit first

    server.reset()
    assert _translate(cache_dir, config, "--since", "2026-01-09") == 0
    assert server.chat_requests == []
    assert _translate(cache_dir, config) == 0
    assert _translated_shas(server) == [legacy]
    translation = _analyses(cache_dir)[legacy].translations["en"]  # type: ignore[union-attr]
    assert translation.conclusion == "" and translation.provenance is not None


def test_a_translation_another_run_holds_is_skipped(server: FakeOpenAIServer, cache_dir: Path, config: Path) -> None:
    held, free = _store(cache_dir, {50: stored_analysis(), 51: stored_analysis()})
    with AnalysisStore(cache_dir) as store:
        lease = Lease(holder="other-run", host="another-host", pid=1, expires_at=4e9)
        assert store.acquire_lease(translation_lease_name("en", REPOSITORY, held), lease, lapsed=lambda _: False)
        # A claim on the commit's analysis is another thing: it does not stop its translation.
        store.acquire_lease(f"analysis/{REPOSITORY}/{free}", lease, lapsed=lambda _: False)
    assert _translate(cache_dir, config) == 0
    assert _translated_shas(server) == [free]


def test_two_processes_on_one_store_pay_once_per_translation(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    shas = _store(cache_dir, {number: stored_analysis(minutes=number) for number in range(60, 72)})
    server.hold_until(8)  # no reply until both runs have four requests in flight
    command = [sys.executable, "-m", "commit_digest.cli", "translate", "-f", str(config), "--cache", str(cache_dir)]
    processes = [
        subprocess.Popen([*command, "--concurrency", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    assert len(server.chat_requests) == 12
    assert sorted(_translated_shas(server)) == sorted(shas)
    assert "skipped: another run is translating it" in "".join(stderr for _, stderr in outputs)
    assert all(analysis.languages == ("zh", "en") for analysis in _analyses(cache_dir).values())  # type: ignore[union-attr]


def test_batch_submit_and_collect_store_translations_and_leave_failures_for_the_next_run(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shas = _store(cache_dir, {number: stored_analysis(minutes=number) for number in range(80, 84)})
    server.script(shas[1], completion("not json"))
    server.batch_status = "in_progress"
    assert _translate(cache_dir, config, "--batch", "submit") == 0
    assert server.chat_requests == []  # nothing went to the synchronous endpoint
    lines = [json.loads(line) for line in next(iter(server.files.values()))[1].decode().splitlines()]
    assert sorted(line["custom_id"] for line in lines) == sorted(f"en:{REPOSITORY}@{sha}" for sha in shas)
    assert all(line["body"]["response_format"]["json_schema"]["strict"] for line in lines)
    with AnalysisStore(cache_dir) as store:
        assert len(store.get_meta(TRANSLATE_BATCHES_META)) == 1  # type: ignore[arg-type]

    # While the batch is open neither a direct run nor another submit pays for its translations.
    assert _translate(cache_dir, config) == 0 and server.chat_requests == []
    assert _translate(cache_dir, config, "--batch", "submit") == 0 and len(server.batches) == 1
    assert _translate(cache_dir, config, "--batch", "collect") == 0
    assert "is still in_progress" in capsys.readouterr().err

    server.batch_status = "completed"
    assert _translate(cache_dir, config, "--batch", "collect") == 1
    output = capsys.readouterr().err
    assert "collected: 3 ok, 1 failed" in output and f"{shas[1][:12]} into en: failed" in output
    analyses = _analyses(cache_dir)
    assert [analyses[sha].languages for sha in shas] == [  # type: ignore[union-attr]
        ("zh", "en"),
        ("zh",),
        ("zh", "en"),
        ("zh", "en"),
    ]
    assert analyses[shas[0]].translations["en"].provenance.usage.completion_tokens > 0  # type: ignore[union-attr]
    with AnalysisStore(cache_dir) as store:
        assert store.get_meta(TRANSLATE_BATCHES_META) == {}

    assert _translate(cache_dir, config) == 0
    assert _translated_shas(server) == [shas[1]]


def test_a_batch_line_for_an_analysis_replaced_meanwhile_is_dropped(
    server: FakeOpenAIServer, cache_dir: Path, config: Path
) -> None:
    (sha,) = _store(cache_dir, {90: stored_analysis()})
    server.batch_status = "in_progress"
    assert _translate(cache_dir, config, "--batch", "submit") == 0
    newer = stored_analysis(minutes=30, summary="新的分析。")
    with AnalysisStore(cache_dir) as store:
        store.merge(CommitRecord(commit=make_commit(90), analysis=newer))
    server.batch_status = "completed"
    assert _translate(cache_dir, config, "--batch", "collect") == 0
    assert _analyses(cache_dir)[sha] == newer  # the old text's translation is not attached to it
    assert _translate(cache_dir, config) == 0
    assert source_of(server.chat_requests[0].json)["summary"][0] == "新的分析。"


def test_stats_counts_translation_tokens_in_the_models_row(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _store(cache_dir, {number: stored_analysis("llm:m-1", minutes=number) for number in range(100, 103)})
    server.script(
        make_commit(100).sha,
        completion(
            json.dumps(translated(source_of_stored()), ensure_ascii=False),
            usage={"prompt_tokens": 1_000_000, "completion_tokens": 100_000},
        ),
    )
    assert _translate(cache_dir, config, "--model", "m-1") == 0
    capsys.readouterr()
    assert main(["stats", "-f", str(config), "--cache", str(cache_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["day", "model", "analyses", "translations"]
    analysed = next(line for line in lines if line.startswith("2026-01-09"))
    assert analysed.split()[1:4] == ["m-1", "3", "0"]  # the stored analyses' own usage, on their day
    translated_row = next(line for line in lines if " m-1 " in line and not line.startswith("2026-01-09"))
    assert translated_row.split()[2:4] == ["0", "3"]
    assert int(translated_row.split()[4]) > 1_000_000
    total = lines[-1].split()
    assert total[:4] == ["total", "3", "3", str(3000 + int(translated_row.split()[4]))]
    # 1M prompt at $1 + 100k completion at $4, plus the small ones.
    assert 1.4 < float(total[-1]) < 1.5


def test_a_translation_below_the_quality_floor_is_asked_once_more_then_fails(
    server: FakeOpenAIServer, cache_dir: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Valid JSON of the source's structure is not enough: junk a small model writes under a grammar
    ("0", "48k", ">1000000000") is never stored as a translation."""
    shas = _store(cache_dir, {number: stored_analysis(minutes=number) for number in range(20, 22)})
    junk, number = shas
    source = translated(source_of_stored())
    digits = json.dumps({**source, "summary": ["0", "48k"]}, ensure_ascii=False)
    figure = json.dumps({**source, "conclusion": ">1000000000"}, ensure_ascii=False)
    server.script(junk, completion(digits), completion(digits))
    server.script(number, completion(figure), completion(figure))
    assert _translate(cache_dir, config) == 1
    assert len(server.chat_requests) == 4  # each asked twice, then failed
    output = capsys.readouterr().err
    assert f"{junk[:12]} into en: failed: invalid reply" in output and "below the quality floor" in output
    analyses = _analyses(cache_dir)
    assert [analyses[sha].languages for sha in shas] == [("zh",), ("zh",)]  # type: ignore[union-attr]

    server.reset()  # a later run asks again
    assert _translate(cache_dir, config) == 0
    assert len(server.chat_requests) == 2


@pytest.mark.parametrize("nothing", ["N/A", "暂无。", "None."])
def test_a_translated_insight_with_nothing_to_say_is_null_as_in_an_analysis(nothing: str) -> None:
    """Before: "N/A is empty" held on the analysis's own wording only; a translation saying "N/A"
    for an insight its source left null broke the source's structure and was paid for again."""
    from commit_digest.analysis.translation import parse_translation
    from tests.analysis.bilingual_replies import translated

    source = stored_analysis().text()
    assert source.insights.security is None
    reply = translated(json.loads(source.model_dump_json(exclude={"provenance"})))
    reply["insights"]["security"] = nothing
    parsed = parse_translation(json.dumps(reply, ensure_ascii=False), source=source, extract=False)
    assert parsed.insights.security is None
