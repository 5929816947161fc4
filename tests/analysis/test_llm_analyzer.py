"""The LLM analyzer driving the real openai SDK against the scripted server: success and every fault."""

from __future__ import annotations

import json
import time

import pytest

from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.prompt import PROMPT_CANARY, PROMPT_VERSION
from commit_digest.models import AnalysisStatus, Importance, LabelSource
from tests.analysis.conftest import API_KEY, FIXED_NOW, make_analyzer, make_commit, make_settings
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    Reply,
    analysis_content,
    completion,
    error,
    raw_body,
)

COMMIT = make_commit(1)
SHA = COMMIT.sha


def test_a_valid_reply_becomes_an_ok_analysis_with_usage_and_merged_labels(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    server.script(
        SHA,
        completion(
            analysis_content(
                importance="high",
                platforms=[{"id": "cuda", "reason": "模型认为也影响 CUDA"}],
                subsystems=[{"id": "moe", "reason": "fused_moe 路径"}],
            )
        ),
    )
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok and analysis.importance is Importance.HIGH
    provenance = analysis.provenance
    assert provenance.analyzer == "llm:gpt-4o-mini" and provenance.prompt_version == PROMPT_VERSION
    assert provenance.created_at == FIXED_NOW and provenance.language == "zh"
    assert provenance.usage is not None and provenance.usage.prompt_tokens > 1000
    sources = {label.id: label.source for label in analysis.platforms}
    assert sources["rocm"] is LabelSource.RULE  # from the [ROCm] tag, with the rule's reason
    assert sources["cuda"] is LabelSource.LLM
    assert {label.id for label in analysis.subsystems} >= {"moe"}
    request = server.chat_requests[0]
    assert not request.had_authorization or API_KEY not in request.body.decode()
    body = request.json
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and set(schema["required"]) == set(schema["properties"])
    assert schema["properties"]["platforms"]["items"]["properties"]["id"]["enum"] == [
        "cuda",
        "rocm",
        "xpu",
        "tpu",
        "cpu",
        "ascend",
        "hpu",
    ]


def test_server_errors_are_retried_with_backoff(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer, sleeps: list[float]
) -> None:
    server.script(SHA, error(500), error(502))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok
    assert len(server.chat_requests_for(SHA)) == 3
    assert sleeps == [1.0, 2.0]  # exponential backoff through the injected sleep: no real waiting


def test_rate_limits_honour_retry_after(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer, sleeps: list[float]
) -> None:
    server.script(SHA, error(429, "slow down", retry_after=7))
    assert analyzer.analyze(COMMIT).ok
    assert sleeps == [7.0]


@pytest.mark.parametrize(
    "header",
    [
        {"retry-after": "nan"},
        {"retry-after": "inf"},
        {"retry-after": "-inf"},
        {"retry-after": "1e999"},
        {"retry-after-ms": "NaN"},
        {"retry-after": "Fri, 31 Dec 9999999 23:59:59 GMT"},
        {"retry-after": "soon"},
    ],
)
def test_a_retry_after_that_is_no_wait_is_ignored_and_the_commit_analysed(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer, sleeps: list[float], header: dict[str, str]
) -> None:
    """Before: `Retry-After: nan` raised a ValueError out of the run, every run again."""
    server.script(SHA, Reply(status=429, body={"error": {"message": "slow down"}}, headers=header))
    assert analyzer.analyze(COMMIT).ok
    assert sleeps == [1.0]  # the usual backoff instead


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -1, "completion_tokens": 500},
        {"prompt_tokens": "2400", "completion_tokens": 500},
        {"prompt_tokens": 10**18, "completion_tokens": 500},
        {"prompt_tokens": 2400, "completion_tokens": 500, "prompt_tokens_details": "none"},
        {"prompt_tokens": None, "completion_tokens": True},
    ],
)
def test_usage_figures_that_cannot_be_are_counted_as_nothing_and_the_paid_reply_kept(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer, usage: dict[str, object]
) -> None:
    """Before: prompt_tokens of -1 or a string threw away a valid, paid reply and asked 4 more
    times; 10**18 made stats price the night at 750,000,000,000 USD."""
    message = {"role": "assistant", "content": analysis_content()}
    body = {"id": "chatcmpl-odd", "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
    server.script(SHA, raw_body(json.dumps({**body, "usage": usage}), content_type="application/json"))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok
    assert len(server.chat_requests_for(SHA)) == 1
    counted = analysis.provenance.usage
    assert counted is not None
    assert 0 <= counted.cached_tokens <= counted.prompt_tokens <= 2400
    assert counted.completion_tokens in (0, 500)


def test_a_retry_after_beyond_the_limit_fails_the_commit_without_waiting(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retry_wait_seconds=30), sleeps)
    server.script(SHA, error(429, retry_after=3600))
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "3600" in (analysis.provenance.error or "") and sleeps == []


def test_errors_outlasting_the_retries_fail_the_commit(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retries=1), sleeps)
    server.script(SHA, error(503), error(503))
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "HTTP 503" in (analysis.provenance.error or "") and "2 attempts" in (
        analysis.provenance.error or ""
    )
    assert not analysis.summary and analysis.importance is None


def test_a_slow_reply_past_the_timeout_is_a_failure_not_a_hang(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    server.script(SHA, completion(analysis_content(), delay=3.0))
    started = time.monotonic()
    analysis = analyzer.analyze(COMMIT)
    assert time.monotonic() - started < 2.5
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "no reply within 0.5 s" in (analysis.provenance.error or "")
    assert len(server.chat_requests_for(SHA)) == 1


def test_a_cut_off_reply_is_asked_again_with_a_smaller_diff(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    server.script(SHA, completion('{"change_type": "bugfix", "summ', finish_reason="length"))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok
    first, second = server.chat_requests_for(SHA)
    assert len(second.message("user")) <= len(first.message("user"))
    assert analysis.provenance.usage is not None  # both attempts are counted
    assert analysis.provenance.usage.completion_tokens > 0


def test_a_reply_cut_off_twice_is_failed_never_stored_as_cut_off(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    cut = completion('{"change_type": "bugfix"', finish_reason="length")
    server.script(SHA, cut, cut)
    analysis = analyzer.analyze(COMMIT)
    assert analysis.provenance.status is AnalysisStatus.FAILED and "cut off" in (
        analysis.provenance.error or ""
    )
    assert analysis.summary == ()


def test_a_refusal_is_stored_as_refused(server: FakeOpenAIServer, analyzer: LlmAnalyzer) -> None:
    server.script(SHA, completion(None, refusal="I can't help with that."))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.provenance.status is AnalysisStatus.REFUSED
    assert "I can't help with that." in (analysis.provenance.error or "")
    assert len(server.chat_requests_for(SHA)) == 1


def test_invalid_json_is_retried_once(server: FakeOpenAIServer, analyzer: LlmAnalyzer) -> None:
    server.script(SHA, completion("{not json"))
    assert analyzer.analyze(COMMIT).ok
    assert len(server.chat_requests_for(SHA)) == 2


def test_invalid_json_twice_fails(server: FakeOpenAIServer, analyzer: LlmAnalyzer) -> None:
    server.script(SHA, completion("{not json"), completion("still not json"))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "invalid reply twice" in (analysis.provenance.error or "")


def test_extra_fields_unknown_enums_labels_and_overlong_text_are_schema_violations(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    bad_replies = {
        "extra": analysis_content(verdict="ship it"),
        "enum": analysis_content(change_type="enhancement"),
        "label": analysis_content(platforms=[{"id": "nvidia", "reason": "x"}]),
        "long": analysis_content(summary=["长" * 5000]),
        "missing": json.dumps({"change_type": "bugfix"}),
    }
    for number, (case, content) in enumerate(bad_replies.items(), start=10):
        commit = make_commit(number)
        server.script(commit.sha, completion(content), completion(content))
        analysis = analyzer.analyze(commit)
        assert analysis.provenance.status is AnalysisStatus.FAILED, case
        assert "schema" in (analysis.provenance.error or "") or "taxonomy" in (
            analysis.provenance.error or ""
        ), case


def test_text_mode_extracts_json_wrapped_in_prose(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, output_mode="text"), sleeps)
    server.script(
        SHA, completion(f"Sure! Here is the analysis:\n```json\n{analysis_content()}\n```\nHope it helps.")
    )
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.ok
    assert "response_format" not in server.chat_requests_for(SHA)[0].json


def test_json_object_mode_sends_the_schema_in_the_prompt_and_beside_the_type(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, output_mode="json_object"), sleeps)
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.ok
    request = server.chat_requests_for(SHA)[0]
    # The schema beside the type: a grammar-constrained server (llama.cpp) holds the reply to it.
    assert request.json["response_format"] == {"type": "json_object", "schema": analyzer.schema}
    assert '"additionalProperties":false' in request.message("system")


def test_a_reply_echoing_the_system_prompt_is_rejected(
    server: FakeOpenAIServer, analyzer: LlmAnalyzer
) -> None:
    def echo_instructions(request: dict) -> object:
        system = next(m["content"] for m in request["messages"] if m["role"] == "system")
        return completion(
            analysis_content(summary=[system[:1000]], conclusion=f"My marker is {PROMPT_CANARY}")
        )

    server.responder = echo_instructions  # type: ignore[assignment]
    analysis = analyzer.analyze(COMMIT)
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert PROMPT_CANARY not in analysis.model_dump_json()
    assert "repeats the instructions" in (analysis.provenance.error or "")


def test_the_api_key_never_reaches_error_texts_or_recorded_requests(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retries=0), sleeps)
    server.script(SHA, error(401, f"Incorrect API key provided: {API_KEY}. Header was Bearer {API_KEY}"))
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "HTTP 401" in (analysis.provenance.error or "")
    assert API_KEY not in analysis.model_dump_json()
    assert all(
        API_KEY not in request.body.decode() and API_KEY not in json.dumps(request.headers)
        for request in server.requests
    )
    assert all(request.had_authorization for request in server.requests)
