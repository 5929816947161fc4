"""Negotiation with the servers people run, each played by the scripted server: the reply form,
the system message, the output-limit fields and the context window, found out once per base URL
and model and remembered in the store."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import scrub
from commit_digest.analysis.servers.families import (
    GENERIC,
    LLAMA_CPP_PYTHON,
    LLAMA_SERVER,
    OLLAMA,
    OPENAI,
    VLLM,
    ServerFacts,
    family_of,
)
from commit_digest.analysis.servers.session import ChatRequest, dropped_system
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus
from commit_digest.settings import DigestSettings
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.server_profiles import StoredServerProfiles, profile_key
from tests.analysis.conftest import API_KEY, make_analyzer, make_commit, make_settings
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    Reply,
    analysis_content,
    completion,
    error,
    estimate_tokens,
)

COMMITS = [make_commit(number) for number in range(1, 4)]
# What llama-cpp-python 0.3.36's server answers a json_schema request: pydantic's error, as a 500.
PYDANTIC_500 = "1 validation error: response_format.type: Input should be 'text' or 'json_object'"


def _messages(request: dict[str, Any]) -> list[dict[str, str]]:
    return list(request["messages"])


def _user_tokens(request: dict[str, Any]) -> int:
    return sum(estimate_tokens(m["content"]) for m in _messages(request) if m["role"] == "user")


def llama_cpp_python(request: dict[str, Any]) -> Reply:
    """llama-cpp-python's server with a Gemma chat format: json_object (with its schema) only, and
    system messages dropped from the prompt (its token count shows it)."""
    form = request.get("response_format") or {}
    if form.get("type") not in (None, "text", "json_object"):
        return error(500, PYDANTIC_500)
    usage = {"prompt_tokens": _user_tokens(request), "completion_tokens": 300}
    if form.get("type") == "json_object" and "schema" not in form:
        return completion("{}", usage=usage)
    if all(m["role"] != "system" for m in _messages(request)):
        return completion(analysis_content(), usage=usage)
    # The model never saw the instructions: a reply that passes the schema, not the floor.
    return completion(analysis_content(summary=["0"], conclusion=">1000000000"), usage=usage)


def test_auto_finds_the_form_and_the_system_role_of_llama_cpp_python_once(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.responder = llama_cpp_python
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    analyses = [analyzer.analyze(commit) for commit in COMMITS]
    client.close()
    assert all(analysis.ok for analysis in analyses)
    # json_schema refused (one request, no retry), json_object with the system message dropped,
    # then json_object with the instructions in the user message; one request per later commit.
    assert [len(server.chat_requests_for(commit.sha)) for commit in COMMITS] == [3, 1, 1]
    assert sleeps == []
    last = server.chat_requests_for(COMMITS[2].sha)[0].json
    assert last["response_format"] == {"type": "json_object", "schema": analyzer.schema}
    assert [message["role"] for message in last["messages"]] == ["user"]
    assert last["max_tokens"] == last["max_completion_tokens"] == analyzer.max_output_tokens

    # A later run reads what worked from the store: no probing.
    server.reset()
    server.responder = llama_cpp_python
    again, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert again.analyze(make_commit(9)).ok
    client.close()
    assert len(server.chat_requests) == 1
    with AnalysisStore("cache") as store:
        profile = store.get_meta(profile_key(server.base_url, "gpt-4o-mini"))
    assert profile == {
        "family": "generic",
        "form": "json_object",
        "system_in_user": True,
        "token_fields": ["max_completion_tokens", "max_tokens"],
        "learned_on": datetime.now(UTC).date().isoformat(),  # json_schema is asked again a week on
    }


def test_a_remembered_form_the_server_now_refuses_is_replaced_in_the_store(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    """Another server now answers at the address (an upgrade, a swap): what it reads is kept,
    so the next run does not pay for the refusal again."""
    with AnalysisStore("cache") as store:
        store.set_meta(
            profile_key(server.base_url, "gpt-4o-mini"),
            {"family": "generic", "form": "json_schema", "system_in_user": True, "token_fields": ["max_tokens"]},
        )
    server.responder = llama_cpp_python
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert analyzer.analyze(COMMITS[0]).ok
    client.close()
    assert len(server.chat_requests) == 2
    with AnalysisStore("cache") as store:
        assert store.get_meta(profile_key(server.base_url, "gpt-4o-mini"))["form"] == "json_object"


def test_an_explicit_mode_the_server_refuses_fails_with_one_request_and_says_what_to_change(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.responder = llama_cpp_python
    analyzer, client = make_analyzer(make_settings(server.base_url, output_mode="json_schema"), sleeps)
    analysis = analyzer.analyze(COMMITS[0])
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert len(server.chat_requests) == 1 and sleeps == []
    assert "response_format" in (analysis.provenance.error or "") and "try auto" in (analysis.provenance.error or "")


def test_json_object_without_the_schema_is_refused_by_the_floor_not_stored(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    """What llama.cpp's grammar lets a model write when json_object carries no schema: {} is invalid."""
    server.responder = lambda request: completion("{}")
    analyzer, client = make_analyzer(make_settings(server.base_url, output_mode="json_object"), sleeps)
    analysis = analyzer.analyze(COMMITS[0])
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert len(server.chat_requests) == 2  # invalid: asked once more, then failed


def test_a_server_that_reads_no_message_fails_the_commit_at_once_and_says_to_check_its_template(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    """llama-server started with --chat-template gemma and Jinja on renders the literal text
    "gemma": 3 prompt tokens, whatever was sent. Moving the instructions would pay for the same."""
    server.responder = lambda request: completion(
        analysis_content(), usage={"prompt_tokens": 3, "completion_tokens": 9}
    )
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    analysis = analyzer.analyze(COMMITS[0])
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert len(server.chat_requests) == 1 and sleeps == []
    assert "read none of the messages" in (analysis.provenance.error or "")
    assert "--chat-template" in (analysis.provenance.error or "")


def test_a_server_that_reads_only_text_is_asked_in_text_after_one_refusal_per_form(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    def text_only(request: dict[str, Any]) -> Reply:
        if "response_format" in request or "structured_outputs" in request:
            return error(400, "response_format is not supported by this server")
        return completion(f"Here it is:\n```json\n{analysis_content()}\n```")

    server.responder = text_only
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    first, second = (analyzer.analyze(commit) for commit in COMMITS[:2])
    client.close()
    assert first.ok and second.ok
    forms = [request.json.get("response_format", {}).get("type") for request in server.chat_requests]
    assert forms == ["json_schema", "json_object", None, None, None]
    assert "structured_outputs" in server.chat_requests[2].json  # vLLM's field, the third form
    assert sleeps == []


def test_vllm_is_known_by_its_listing_and_its_context_window_shrinks_the_prompt_before_sending(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.models = {"object": "list", "data": [{"id": "gpt-4o-mini", "owned_by": "vllm", "max_model_len": 3500}]}
    big = make_commit(5)
    analyzer, client = make_analyzer(make_settings(server.base_url, diff_token_budget=12_000), sleeps)
    prompt = analyzer.prompt_for(big)
    analysis = analyzer.analyze(big)
    client.close()
    assert analysis.ok and len(server.chat_requests) == 1
    sent = server.chat_requests[0].json
    sent_tokens = sum(estimate_tokens(message["content"]) for message in sent["messages"])
    # The prompt leaves a quarter of the window for the reply, and the limit asked is within it.
    assert sent_tokens < prompt.estimated_tokens and sent_tokens + 3500 // 4 <= 3500
    assert sent["max_tokens"] == sent["max_completion_tokens"] <= 3500 - sent_tokens


@pytest.mark.parametrize("window", [10, 300, 1023, 10**12])
def test_a_reported_window_no_model_has_is_ignored_with_one_line(
    server: FakeOpenAIServer, sleeps: list[float], window: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: max_model_len 300 (or a window of 10) was believed: the prompt cut to its minimum
    and max_tokens to 256, with one INFO line that said nothing was wrong."""
    server.models = {"object": "list", "data": [{"id": "gpt-4o-mini", "owned_by": "vllm", "max_model_len": window}]}
    commit = make_commit(5)
    analyzer, client = make_analyzer(make_settings(server.base_url, diff_token_budget=12_000), sleeps)
    whole = analyzer.prompt_for(commit)
    with caplog.at_level("INFO", logger="mkdocs.plugins.commit_digest"):
        analysis = analyzer.analyze(commit)
    client.close()
    assert analysis.ok and len(server.chat_requests) == 1
    sent = server.chat_requests[0].json
    assert sum(estimate_tokens(message["content"]) for message in sent["messages"]) >= whole.estimated_tokens * 0.9
    assert sent["max_tokens"] == analyzer.max_output_tokens
    said = [record.getMessage() for record in caplog.records if "context window" in record.getMessage()]
    assert len(said) == 1 and f"{window} tokens" in said[0] and "ignored" in said[0]


def test_a_context_length_answer_shrinks_the_prompt_and_asks_once_more_never_five_times(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    limit = {"tokens": 2_600}

    def small_window(request: dict[str, Any]) -> Reply:
        tokens = sum(estimate_tokens(message["content"]) for message in request["messages"])
        if tokens > limit["tokens"]:
            return error(
                400,
                f"This model's maximum context length is {limit['tokens']} tokens. However, you requested "
                f"{tokens + 4000} tokens ({tokens} in the messages, 4000 in the completion).",
            )
        return completion(analysis_content())

    server.responder = small_window
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert analyzer.analyze(COMMITS[0]).ok
    assert len(server.chat_requests) == 2 and sleeps == []

    server.reset()
    server.responder = small_window
    limit["tokens"] = 1_100  # below the instructions alone: shrinking cannot help
    analysis = analyzer.analyze(COMMITS[1])
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert len(server.chat_requests) == 2 and sleeps == []
    assert "maximum context length" in (analysis.provenance.error or "")


def test_a_refused_system_message_moves_the_instructions_into_the_user_message(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    def no_system(request: dict[str, Any]) -> Reply:
        if any(message["role"] == "system" for message in request["messages"]):
            return error(400, "System role not supported")
        return completion(analysis_content())

    server.responder = no_system
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert all(analyzer.analyze(commit).ok for commit in COMMITS[:2])
    client.close()
    assert len(server.chat_requests) == 3


def test_system_role_false_always_puts_the_instructions_in_the_user_message(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, system_role=False), sleeps)
    assert analyzer.analyze(COMMITS[0]).ok
    client.close()
    (request,) = server.chat_requests
    assert [message["role"] for message in request.json["messages"]] == ["user"]
    assert request.message("user").startswith(analyzer.system)


def test_a_refused_output_limit_field_is_left_out_from_then_on(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    def completion_tokens_only(request: dict[str, Any]) -> Reply:
        if "max_tokens" in request:
            return error(400, "Unsupported parameter: 'max_tokens' is not supported with this model.")
        return completion(analysis_content())

    server.responder = completion_tokens_only
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert all(analyzer.analyze(commit).ok for commit in COMMITS[:2])
    client.close()
    assert len(server.chat_requests) == 3
    assert server.chat_requests[-1].json["max_completion_tokens"] == analyzer.max_output_tokens


def test_families_are_told_by_what_the_server_says() -> None:
    assert family_of("https://api.openai.com/v1", None) is OPENAI
    assert OPENAI.token_fields == ("max_completion_tokens",)
    assert family_of("http://h/v1", {"data": [{"id": "m", "owned_by": "vllm", "max_model_len": 8192}]}) is VLLM
    assert family_of("http://h/v1", {"data": [{"id": "m", "owned_by": "me"}]}) is LLAMA_CPP_PYTHON
    assert family_of("http://h/v1", None) is GENERIC
    assert VLLM.context_tokens(ServerFacts(models={"data": [{"id": "m", "max_model_len": 8192}]}), "m") == 8192
    assert LLAMA_SERVER.context_tokens(ServerFacts(props={"default_generation_settings": {"n_ctx": 4096}}), "m") == 4096
    assert OLLAMA.context_tokens(ServerFacts(show={"model_info": {"gemma3.context_length": 32768}}), "m") == 32768
    # A gateway listing other models: their windows are not this model's; a lone listing is served.
    others = {"data": [{"id": "a", "max_model_len": 2048}, {"id": "b", "max_model_len": 4096}]}
    assert VLLM.context_tokens(ServerFacts(models=others), "m") is None
    assert VLLM.context_tokens(ServerFacts(models={"data": [{"id": "alias", "max_model_len": 2048}]}), "m") == 2048
    # Odd listings say nothing, and never fail the run.
    for odd in ({"data": "x"}, {"data": [{}]}, {"data": [{"id": "m", "max_model_len": "8192"}]}, []):
        assert VLLM.context_tokens(ServerFacts(models=odd), "m") is None  # type: ignore[arg-type]
    assert family_of("http://h/v1", {"data": "x"}) is family_of("http://h/v1", []) is GENERIC  # type: ignore[arg-type]


def test_credentials_in_the_base_url_reach_neither_the_store_nor_the_logs(
    server: FakeOpenAIServer, sleeps: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    with_credentials = server.base_url.replace("http://", "http://someone:s3cr3t-gateway-key@")
    analyzer, client = make_analyzer(make_settings(with_credentials), sleeps)
    with caplog.at_level(logging.DEBUG):
        assert analyzer.analyze(COMMITS[0]).ok
    client.close()
    with AnalysisStore("cache") as store:
        assert store.get_meta(profile_key(server.base_url, "gpt-4o-mini")) is not None
    assert not any(b"s3cr3t" in path.read_bytes() for path in Path("cache").rglob("*") if path.is_file())
    ours = [record.getMessage() for record in caplog.records if record.name.startswith("mkdocs.plugins")]
    assert ours and not any("s3cr3t" in message for message in ours)


def test_redaction_leaves_values_that_are_no_secret_alone() -> None:
    message = "response_format.type: Input should be 'text' or 'json_object'; expected EMPTY"
    for value in ("x", "EMPTY", "sk-1234"):
        assert scrub(message, (value,)) == message
    assert scrub(f"key {API_KEY} refused", (API_KEY,)) == "key [redacted] refused"


def test_a_short_key_does_not_mangle_the_error_the_store_keeps(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.responder = lambda request: error(500, "the text was unexpected")
    settings = make_settings(server.base_url, output_mode="json_schema", max_retries=0)

    client = LlmClient(settings.llm, api_key="x", sleep=sleeps.append)
    analysis = LlmAnalyzer(client, settings, load_taxonomy()).analyze(COMMITS[0])
    client.close()
    assert "the text was unexpected" in (analysis.provenance.error or "")


def test_a_known_context_window_never_raises_a_small_output_limit(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.models = {"object": "list", "data": [{"id": "gpt-4o-mini", "owned_by": "vllm", "max_model_len": 3500}]}
    analyzer, client = make_analyzer(make_settings(server.base_url, max_output_tokens=16), sleeps)
    analyzer.analyze(COMMITS[0])
    client.close()
    assert server.chat_requests[0].json["max_tokens"] == 16


def test_a_chinese_prompt_counted_whole_is_not_taken_for_a_dropped_system_message() -> None:
    """The estimate takes a token per Han character; a tokenizer about 0.77: a kept system message
    must not be judged dropped (the reply paid for again, and the profile changed for good)."""
    request = ChatRequest(system="说明" * 160, user="本周的提交分析" * 200, schema={}, max_output_tokens=500)
    whole = int(0.77 * request.estimated_tokens)
    assert not dropped_system(request, whole)
    # Long English instructions beside Chinese data, the system message dropped: still told.
    instructed = ChatRequest(
        system="Analyse the commit. " * 400, user="本周的提交分析" * 40, schema={}, max_output_tokens=500
    )
    assert dropped_system(instructed, int(0.77 * estimate_tokens(instructed.user)) + 20)


LLAMA_CPP_MODELS = {"object": "list", "data": [{"id": "gpt-4o-mini", "owned_by": "llamacpp"}]}


@pytest.mark.parametrize(("slots", "expected"), [(1, 1), (4, 4), (64, 8), (0, 8), (10**6, 8), ("2", 8)])
def test_unless_set_concurrency_follows_the_slots_the_server_reports(
    server: FakeOpenAIServer, sleeps: list[float], slots: object, expected: int
) -> None:
    """Before: 8 requests queued on a one-slot llama-server, each timing out while it waited."""
    server.models = LLAMA_CPP_MODELS
    server.props = {"total_slots": slots, "default_generation_settings": {"n_ctx": 8192}}
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    assert analyzer.concurrency() == expected
    client.close()


def test_a_concurrency_that_is_set_is_kept_whatever_the_server_says(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.models = LLAMA_CPP_MODELS
    server.props = {"total_slots": 1}
    analyzer, client = make_analyzer(make_settings(server.base_url, concurrency=3), sleeps)
    assert analyzer.concurrency() == 3
    client.close()
    assert not [request for request in server.requests if request.path.endswith("/props")]  # not even asked


def _remember(settings: DigestSettings, server: FakeOpenAIServer, form: str, days_ago: int) -> None:
    learned = (datetime.now(UTC) - timedelta(days=days_ago)).date().isoformat()
    profile = {"family": "generic", "form": form, "system_in_user": False, "learned_on": learned}
    StoredServerProfiles(settings.cache_dir).put(server.base_url.rstrip("/"), settings.llm.model, profile)


def _first_form(server: FakeOpenAIServer) -> str | None:
    return server.chat_requests[0].json.get("response_format", {}).get("type")


@pytest.mark.parametrize(("days_ago", "first"), [(2, "json_object"), (8, "json_schema")])
def test_a_weaker_form_is_asked_upward_again_once_a_week_old(
    server: FakeOpenAIServer, sleeps: list[float], days_ago: int, first: str
) -> None:
    """Before: one flaky refusal naming response_format stored json_object, and json_schema was
    never asked again."""
    settings = make_settings(server.base_url)
    _remember(settings, server, "json_object", days_ago)
    analyzer, client = make_analyzer(settings, sleeps)
    assert analyzer.analyze(make_commit(31)).ok
    client.close()
    assert _first_form(server) == first and len(server.chat_requests) == 1
    stored = StoredServerProfiles(settings.cache_dir).get(server.base_url.rstrip("/"), settings.llm.model)
    assert stored is not None and stored["form"] == first
    assert stored["learned_on"] == (
        datetime.now(UTC).date().isoformat() if first == "json_schema" else _days_ago(days_ago)
    )


def _days_ago(days: int) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()


def test_renegotiate_forgets_what_the_server_was_found_to_read(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    settings = make_settings(server.base_url, renegotiate=True)
    _remember(settings, server, "text", 1)
    analyzer, client = make_analyzer(settings, sleeps)
    assert analyzer.analyze(make_commit(32)).ok
    client.close()
    assert _first_form(server) == "json_schema"


def test_a_gateway_counting_only_uncached_prompt_tokens_is_not_taken_for_a_dropped_system_message(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    """Before: prompt_tokens of the uncached part alone (cached ones beside it) read as a dropped
    system message, and the instructions moved into the user message for good."""
    usage = {"prompt_tokens": 300, "completion_tokens": 120, "prompt_tokens_details": {"cached_tokens": 2600}}
    server.responder = lambda request: completion(analysis_content(), usage=usage)
    analyzer, client = make_analyzer(make_settings(server.base_url), sleeps)
    analysis = analyzer.analyze(make_commit(41))
    client.close()
    assert analysis.ok and len(server.chat_requests) == 1
    assert [message["role"] for message in server.chat_requests[0].json["messages"]] == ["system", "user"]
    assert analysis.provenance.usage is not None
    assert (analysis.provenance.usage.prompt_tokens, analysis.provenance.usage.cached_tokens) == (2900, 2600)
