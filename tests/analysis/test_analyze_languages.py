"""`analyze` on a site in two languages: one request per commit asks for both wordings; a site in
one language sends exactly the request it always did. The real SDK against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commit_digest.analysis.llm_client import strict_schema_of
from commit_digest.analysis.llm_schema import LlmAnalysis, response_schema
from commit_digest.analysis.prompt import PROMPT_VERSION, reply_schema, system_prompt
from commit_digest.cli import main
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.settings import DigestSettings, load_settings
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.bilingual_replies import (
    ENGLISH_WORDING,
    bilingual_content,
    language_responder,
    stored_analysis,
)
from tests.analysis.conftest import make_commit, write_config
from tests.fakes.openai_server import FakeOpenAIServer, completion

TAXONOMY = load_taxonomy()
CONFIG = """site_name: two languages
plugins:
  - commit-digest:
      languages: {languages}
      llm:
        retry_backoff_seconds: 0
        max_output_tokens: 3000
"""


def _config(tmp_path: Path, languages: str) -> Path:
    return write_config(tmp_path, CONFIG.format(languages=languages))


@pytest.fixture(autouse=True)
def _bilingual_replies(server: FakeOpenAIServer) -> None:
    server.responder = language_responder  # type: ignore[assignment]


def _store(cache_dir: Path, numbers: range, **analyses: object) -> list[str]:
    commits = [make_commit(number) for number in numbers]
    with AnalysisStore(cache_dir) as store:
        for commit in commits:
            store.merge(CommitRecord(commit=commit, analysis=analyses.get(commit.sha)))  # type: ignore[arg-type]
    return [commit.sha for commit in commits]


def _records(cache_dir: Path) -> dict[str, CommitRecord]:
    with AnalysisStore(cache_dir) as store:
        return {record.commit.sha: record for record in store.records()}


def _analyze(cache_dir: Path, config: Path, *extra: str) -> int:
    return main(["analyze", "-f", str(config), "--cache", str(cache_dir), *extra])


def test_settings_languages_are_the_list_or_the_one_language() -> None:
    assert DigestSettings().languages == ("zh",)
    assert DigestSettings(language="en").languages == ("en",)
    assert DigestSettings.model_validate({"languages": ["en", "zh"]}).languages == ("en", "zh")


def test_two_languages_cost_one_request_per_commit_and_store_both_wordings(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    config = _config(tmp_path, "[zh, en]")
    shas = _store(cache_dir, range(1, 5))
    assert _analyze(cache_dir, config, "--concurrency", "2") == 0
    assert len(server.chat_requests) == 4
    assert sorted(sha for sha in shas if len(server.chat_requests_for(sha)) == 1) == sorted(shas)

    body = server.chat_requests[0].json
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["json_schema"]["strict"] is True
    assert schema["required"] == ["change_type", "importance", "zh", "en", "platforms", "subsystems"]
    assert schema["additionalProperties"] is False
    wording = schema["properties"]["zh"]
    assert schema["properties"]["en"] == wording
    assert "$defs" not in json.dumps(body) and "Llm" not in json.dumps(body)  # no class of ours is named
    assert wording["additionalProperties"] is False and set(wording["required"]) == set(wording["properties"])
    assert list(wording["properties"]) == [
        "summary",
        "impact_scope",
        "insights",
        "risks",
        "recommendations",
        "conclusion",
    ]
    assert body["max_completion_tokens"] == 6000  # each wording gets the one-language limit
    system = server.chat_requests[0].message("system")
    assert "简体中文" in system and 'under "en"' in system and "must say the same thing" in system

    for record in _records(cache_dir).values():
        analysis = record.analysis
        assert analysis is not None and analysis.ok and analysis.languages == ("zh", "en")
        assert analysis.provenance.language == "zh" and analysis.provenance.prompt_version == PROMPT_VERSION
        assert analysis.summary == ("修复了调度器在抢占时丢失请求的问题。",)
        english = analysis.in_language("en")
        assert english is not None and english.summary == tuple(ENGLISH_WORDING["summary"])
        assert english.recommendations[0].audience == "developers" and english.importance == analysis.importance
        assert analysis.translations["en"].provenance is None  # its tokens are the analysis's

    server.reset()
    assert _analyze(cache_dir, config) == 0
    assert server.chat_requests == []


def test_english_first_stores_an_english_analysis_with_a_chinese_translation(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    _store(cache_dir, range(10, 11))
    assert _analyze(cache_dir, _config(tmp_path, "[en, zh]")) == 0
    schema = server.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["required"][2:4] == ["en", "zh"]
    (record,) = _records(cache_dir).values()
    assert record.analysis is not None and record.analysis.languages == ("en", "zh")
    assert record.analysis.summary == tuple(ENGLISH_WORDING["summary"])


def test_a_one_language_site_sends_the_request_it_always_did(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    _store(cache_dir, range(20, 22))
    assert _analyze(cache_dir, _config(tmp_path, "[zh]")) == 0
    assert len(server.chat_requests) == 2
    body = server.chat_requests[0].json
    # The schema and instructions of before two-language sites existed, byte for byte.
    assert body["response_format"]["json_schema"]["schema"] == response_schema(strict_schema_of(LlmAnalysis), TAXONOMY)
    assert body["response_format"]["json_schema"]["schema"] == reply_schema(TAXONOMY)
    assert body["messages"][0]["content"] == system_prompt(TAXONOMY, "zh", "vllm-project/vllm")
    assert body["max_completion_tokens"] == 3000
    assert "zh" not in body["response_format"]["json_schema"]["schema"]["properties"]
    for record in _records(cache_dir).values():
        assert record.analysis is not None and record.analysis.languages == ("zh",)


def test_an_analysis_in_one_language_stays_current_on_a_two_language_site(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    chinese_only = make_commit(30)
    _store(cache_dir, range(30, 32), **{chinese_only.sha: stored_analysis()})
    assert _analyze(cache_dir, _config(tmp_path, "[zh, en]")) == 0
    assert [request.message("user").count(make_commit(31).sha) > 0 for request in server.chat_requests] == [True]
    kept = _records(cache_dir)[chinese_only.sha].analysis
    assert kept == stored_analysis()  # not re-analysed: `translate` adds its English


def test_a_reply_missing_a_language_is_invalid_and_asked_again_once(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    (sha,) = _store(cache_dir, range(40, 41))
    half = json.loads(bilingual_content())
    del half["en"]
    server.script(sha, completion(json.dumps(half, ensure_ascii=False)))
    assert _analyze(cache_dir, _config(tmp_path, "[zh, en]")) == 0
    assert len(server.chat_requests_for(sha)) == 2
    analysis = _records(cache_dir)[sha].analysis
    assert analysis is not None and analysis.languages == ("zh", "en")

    server.reset()
    (other,) = _store(cache_dir, range(41, 42))
    server.script(other, *[completion(json.dumps(half, ensure_ascii=False))] * 2)
    assert _analyze(cache_dir, _config(tmp_path, "[zh, en]")) == 1
    record = _records(cache_dir)[other]
    failed = record.failure  # beside the offline analysis the page shows instead
    assert failed is not None and failed.status is AnalysisStatus.FAILED and "en" in (failed.error or "")
    assert record.analysis is not None and record.analysis.provenance.analyzer == "offline"


def test_json_object_mode_shows_the_two_language_schema_in_the_instructions(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    _store(cache_dir, range(50, 51))
    assert _analyze(cache_dir, _config(tmp_path, "[zh, en]"), "--output-mode", "json_object") == 0
    request = server.chat_requests[0]
    assert request.json["response_format"]["type"] == "json_object"
    assert request.json["response_format"]["schema"]["required"] == [
        "change_type", "importance", "zh", "en", "platforms", "subsystems"
    ]
    assert '"required":["change_type","importance","zh","en","platforms","subsystems"]' in request.message("system")
    (record,) = _records(cache_dir).values()
    assert record.analysis is not None and record.analysis.languages == ("zh", "en")


def test_text_mode_reads_both_wordings_from_prose(server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path) -> None:
    (sha,) = _store(cache_dir, range(55, 56))
    server.script(sha, completion(f"Here you go:\n```json\n{bilingual_content()}\n```"))
    assert _analyze(cache_dir, _config(tmp_path, "[zh, en]"), "--output-mode", "text") == 0
    assert "response_format" not in server.chat_requests[0].json
    analysis = _records(cache_dir)[sha].analysis
    assert analysis is not None and analysis.languages == ("zh", "en")


def test_the_batch_api_asks_for_both_languages_in_each_line(
    server: FakeOpenAIServer, cache_dir: Path, tmp_path: Path
) -> None:
    config = _config(tmp_path, "[zh, en]")
    _store(cache_dir, range(60, 63))
    assert _analyze(cache_dir, config, "--batch", "submit") == 0
    lines = [json.loads(line) for line in next(iter(server.files.values()))[1].decode().splitlines()]
    assert len(lines) == 3
    schemas = [line["body"]["response_format"]["json_schema"]["schema"] for line in lines]
    assert all(schema["required"][2:4] == ["zh", "en"] for schema in schemas)
    assert _analyze(cache_dir, config, "--batch", "collect") == 0
    assert server.chat_requests == []
    assert {record.analysis.languages for record in _records(cache_dir).values()} == {("zh", "en")}  # type: ignore[union-attr]


def test_the_settings_of_a_two_language_mkdocs_yml_reach_the_analyzer(tmp_path: Path) -> None:
    settings = load_settings(_config(tmp_path, "[en, zh]"))
    assert settings.language == "en" and settings.languages == ("en", "zh")
