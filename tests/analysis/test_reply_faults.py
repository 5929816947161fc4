"""Replies that are not chat completions (a gateway's HTML page with status 200, JSON of another
shape, no choices): each is a retryable fault of its commit, never an exception out of the run."""

from __future__ import annotations

import gzip
import json

import pytest

from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.llm_reply import MAX_REPLY_BYTES
from commit_digest.models import AnalysisStatus
from tests.analysis.conftest import make_analyzer, make_commit, make_settings
from tests.fakes.openai_server import GATEWAY_PAGE, FakeOpenAIServer, Reply, analysis_content, raw_body

COMMIT = make_commit(7)
SHA = COMMIT.sha

def _one_bad_byte(content: str) -> bytes:
    """A chat completion of ``content`` whose first non-ASCII character lost its last byte."""
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"content": content}}]}
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    first = next(index for index, byte in enumerate(data) if byte >= 0x80)
    return data[: first + 2] + b"?" + data[first + 3 :]


BAD_REPLIES: dict[str, Reply] = {
    "html page with status 200": GATEWAY_PAGE,
    "plain text": raw_body("upstream connect error or disconnect/reset before headers", content_type="text/plain"),
    "truncated json": raw_body('{"id": "chatcmpl-1", "choices": [{"index": 0, "mess', content_type="application/json"),
    "json of another shape": raw_body('{"status": "ok", "data": []}', content_type="application/json"),
    "a json string": raw_body('"service unavailable"', content_type="application/json"),
    "no choices": raw_body('{"id": "x", "object": "chat.completion", "choices": []}', content_type="application/json"),
    "a choice without a message": raw_body(
        '{"choices": [{"index": 0, "finish_reason": "stop", "message": null}]}', content_type="application/json"
    ),
    "an empty body": raw_body(b"", content_type="application/json"),
    # A valid analysis but for one byte that is no UTF-8: before, stored as ok with U+FFFD in its text.
    "invalid utf-8": raw_body(_one_bad_byte(analysis_content()), content_type="application/json"),
}


@pytest.mark.parametrize("kind", sorted(BAD_REPLIES))
def test_a_reply_that_is_not_a_completion_is_retried_and_the_commit_analysed(
    kind: str, server: FakeOpenAIServer, analyzer: LlmAnalyzer, sleeps: list[float]
) -> None:
    server.script(SHA, BAD_REPLIES[kind])
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok
    assert len(server.chat_requests_for(SHA)) == 2  # the bad reply, then the responder's good one
    assert sleeps == [1.0]  # backed off like a server error, through the injected sleep


def test_bad_replies_outlasting_the_retries_fail_the_commit_with_what_came_back(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retries=2), sleeps)
    server.script(SHA, GATEWAY_PAGE, GATEWAY_PAGE, GATEWAY_PAGE)
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert len(server.chat_requests_for(SHA)) == 3
    assert analysis.provenance.status is AnalysisStatus.FAILED and not analysis.summary
    error = analysis.provenance.error or ""
    assert "not JSON" in error and "text/html" in error and "502 Bad Gateway" in error
    assert "gave up after 3 attempts" in error


def test_a_body_that_is_no_utf8_fails_the_commit_saying_so(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retries=1), sleeps)
    bad = raw_body(b'{"choices": [{"index": 0, "message": {"content": "caf\xe9"}}]}', content_type="application/json")
    server.script(SHA, bad, bad)
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert "not valid UTF-8 (byte 0xe9 at offset 53 of 59)" in (analysis.provenance.error or "")


def test_a_body_past_the_cap_after_decompression_is_not_read_on(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    """Before: a gzip of 254 KB on the wire unpacking to 256 MB was read whole (836 MB peak)."""
    content = " " * (MAX_REPLY_BYTES + 1)
    body = json.dumps({"choices": [{"index": 0, "message": {"content": content}}]}).encode()
    packed = gzip.compress(body)
    assert len(packed) < 50_000
    bomb = Reply(status=200, body=packed, headers={"content-encoding": "gzip"}, content_type="application/json")
    analyzer, client = make_analyzer(make_settings(server.base_url, max_retries=0), sleeps)
    server.script(SHA, bomb)
    analysis = analyzer.analyze(COMMIT)
    client.close()
    assert analysis.provenance.status is AnalysisStatus.FAILED
    assert f"larger than {MAX_REPLY_BYTES:,} bytes" in (analysis.provenance.error or "")


def test_a_reply_with_a_finish_reason_of_its_own_is_still_read(server: FakeOpenAIServer, analyzer: LlmAnalyzer) -> None:
    """OpenAI-compatible servers add fields and name finish reasons their own way: only what we
    read is checked, so they keep working."""
    body = (
        '{"choices": [{"message": {"role": "assistant", "content": %s, "reasoning_content": "..."},'
        ' "finish_reason": "eos", "stop_reason": 128001}], "usage": {"prompt_tokens": 3100, "completion_tokens": 5},'
        ' "prompt_logprobs": null, "kv_transfer_params": null}'
    )
    server.script(SHA, raw_body(body % json.dumps(analysis_content()), content_type="application/json"))
    analysis = analyzer.analyze(COMMIT)
    assert analysis.ok and len(server.chat_requests_for(SHA)) == 1
    assert analysis.provenance.usage is not None and analysis.provenance.usage.completion_tokens == 5
