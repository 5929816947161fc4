"""Replies are read as they stream (issue 45): a model in a loop is stopped at its third repeat
instead of being paid to the output limit (SmolLM2-135M on llama-server: 4,000 tokens, 391 s, for
a summary of one item repeated), and every way a server may stream, or not, still ends in a
stored answer or a stored failure. Driven through the real CLI and the real openai client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commit_digest.analysis.reply_watch import LoopWatch, most_items_in
from commit_digest.cli import main
from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import API_KEY, cli_project, make_commit
from tests.fakes.openai_server import FakeOpenAIServer, Reply, analysis_content, completion, error, looping

START = '{"change_type": "feature", "importance": "low", "summary": ['


def _setup(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, index: int, **llm: object):
    commit = make_commit(index)
    # The system message taken as read, so that the first request streams as every later one does.
    cli_project(
        tmp_path, monkeypatch, [commit], {"base_url": server.base_url, "max_retries": 0, "system_role": True, **llm}
    )
    return commit


def _stored(tmp_path: Path, commit) -> CommitRecord:  # type: ignore[no-untyped-def]
    with AnalysisStore(tmp_path / "cache") as store:
        record = store.get(commit.repository, commit.sha)
    assert record is not None
    return record


def test_a_reply_repeating_one_list_item_is_stopped_at_its_third_repeat(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server would loop for ever: the run ends only because the client stops reading."""
    commit = _setup(tmp_path, server, monkeypatch, 21)
    server.script(commit.sha, looping(START, '"-LlmInsights", '), looping(START, '"-LlmInsights", '))
    assert main(["analyze"]) == 1
    record = _stored(tmp_path, commit)
    failure = record.failure
    assert failure is not None and failure.status is AnalysisStatus.FAILED
    assert "a list repeats one item 3 times: '-LlmInsights'" in (failure.error or "")
    assert "stopped as it streamed" in (failure.error or "")
    assert failure.usage is not None and failure.usage.completion_tokens < 100  # two replies, a few items each
    assert len(server.chat_requests_for(commit.sha)) == 2  # an invalid reply is asked once more, as before
    assert all(request.json["stream"] is True for request in server.chat_requests_for(commit.sha))
    said = capsys.readouterr().err
    assert "analysed 1 of 1 commit" in said and "1 failed" in said


def test_a_text_repeating_one_sentence_is_stopped_while_it_is_still_being_written(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 22)
    start = START + '"This commit is a feature, not a bugfix. '
    server.script(
        commit.sha, looping(start, "This commit is a feature, not a bugfix. "), completion(analysis_content())
    )
    assert main(["analyze"]) == 0
    record = _stored(tmp_path, commit)
    assert record.analysis is not None and record.analysis.ok  # the second ask was a good reply
    provenance = record.analysis.provenance
    assert provenance.usage is not None and provenance.usage.completion_tokens < 2_000


def test_a_streamed_reply_is_kept_with_the_usage_its_last_chunk_reports(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 23)
    usage = {"prompt_tokens": 2345, "completion_tokens": 456}
    server.script(commit.sha, Reply(content=analysis_content(), usage=usage))
    assert main(["analyze"]) == 0
    record = _stored(tmp_path, commit)
    assert record.analysis is not None and record.analysis.ok
    assert record.analysis.provenance.usage is not None
    assert (record.analysis.provenance.usage.prompt_tokens, record.analysis.provenance.usage.completion_tokens) == (
        2345,
        456,
    )
    (request,) = server.chat_requests_for(commit.sha)
    assert request.json["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(content=analysis_content(), whole=True),
        Reply(content=analysis_content(), no_stream_usage=True),
    ],
    ids=["answered whole", "no usage in the stream"],
)
def test_a_server_that_answers_whole_or_sends_no_usage_is_read_all_the_same(
    reply: Reply, server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the usage chunk the tokens are estimated from what was sent and received: never 0,
    which would read as a server that dropped the system message and cost a second request."""
    commit = _setup(tmp_path, server, monkeypatch, 24)
    server.script(commit.sha, reply)
    assert main(["analyze"]) == 0
    record = _stored(tmp_path, commit)
    assert record.analysis is not None and record.analysis.ok
    assert record.analysis.provenance.usage is not None and record.analysis.provenance.usage.prompt_tokens > 1_000
    assert len(server.chat_requests_for(commit.sha)) == 1


def test_a_server_that_refuses_to_stream_is_asked_whole_and_remembered(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 25)
    server.script(commit.sha, error(400, "stream_options: extra inputs are not permitted"))
    assert main(["analyze"]) == 0
    first, second = server.chat_requests_for(commit.sha)
    assert first.json["stream"] is True and "stream" not in second.json
    record = _stored(tmp_path, commit)
    assert record.analysis is not None and record.analysis.ok
    later = make_commit(26)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=later))
    assert main(["analyze"]) == 0
    assert "stream" not in server.chat_requests_for(later.sha)[0].json  # the next run asks whole at once


def test_a_transient_5xx_that_speaks_of_streaming_downgrades_nothing(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 27, max_retries=1, retry_backoff_seconds=0)
    server.script(commit.sha, error(500, "error while streaming the response"))
    assert main(["analyze"]) == 0
    assert all(request.json.get("stream") for request in server.chat_requests_for(commit.sha))


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        (b'data: {"choices": [{"delta": {"content": "caf\xe9"}}]}\n\n', "not valid UTF-8"),
        (b'data: {"error": {"message": "out of memory"}}\n\n', "reported an error mid-reply"),
        (b'data: {"choices": [{"delta": {"content": "{}"}}]}\n\ndata: [DONE]\n\n', "without a finish reason"),
    ],
    ids=["not UTF-8", "error event", "no finish reason"],
)
def test_a_broken_stream_is_an_invalid_reply_and_nothing_is_kept_as_ok(
    events: bytes,
    problem: str,
    server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 28)
    broken = Reply(body=events, content_type="text/event-stream")
    server.script(commit.sha, broken, broken)
    assert main(["analyze"]) == 1
    failure = _stored(tmp_path, commit).failure
    assert failure is not None and problem in (failure.error or "")


# -- the watch itself ---------------------------------------------------------------------------


def _fed(text: str, piece: int = 7) -> str | None:
    watch = LoopWatch()
    for at in range(0, len(text), piece):
        if watch.feed(text[at : at + piece]) is not None:
            return watch.problem
    return watch.problem


def test_the_watch_keeps_the_floor_s_rule_and_no_more() -> None:
    twice = json.dumps({"summary": ["Fixes the MoE kernel.", "Fixes the MoE kernel.", "Other item here."]})
    assert _fed(twice) is None  # the same point made twice is accepted
    thrice = json.dumps({"summary": ["Fixes the MoE kernel."] * 3})
    assert _fed(thrice) == "a list repeats one item 3 times: 'Fixes the MoE kernel.'"
    keys = json.dumps([{"reason": "touches ROCm"}, {"reason": "touches ROCm"}, {"reason": "touches ROCm"}])
    assert _fed(keys) is None  # values of three objects are no list's items
    sentence = json.dumps({"conclusion": "It works now. " * 3})
    assert _fed(sentence) == "a text repeats one sentence 3 times: 'It works now.'"
    escaped = json.dumps({"risks": ['say "x" \\ twice', 'say "x" \\ twice', 'say "x" \\ twice']})
    assert _fed(escaped, piece=3) == "a list repeats one item 3 times: 'say \"x\" \\\\ twice'"
    assert _fed("Prose before any JSON. " * 3) == "a text repeats one sentence 3 times: 'Prose before any JSON.'"
    assert _fed(json.dumps({"summary": ["ok", "ok", "ok"]})) is None  # too short to be a loop


def test_a_server_that_leaves_usage_out_of_a_stream_is_judged_on_one_whole_reply(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dropped-system check needs the server's own prompt count, which llama-cpp-python leaves
    out of a stream: the next request goes whole and is judged, and every later one streams."""
    server.responder = lambda request: Reply(content=analysis_content(), no_stream_usage=True)
    _setup(tmp_path, server, monkeypatch, 29, system_role="auto", concurrency=1)
    with AnalysisStore(tmp_path / "cache") as store:
        for index in (30, 36):
            store.merge(CommitRecord(commit=make_commit(index)))
    assert main(["analyze"]) == 0
    assert ["stream" in request.json for request in server.chat_requests] == [True, False, True]
    with AnalysisStore(tmp_path / "cache") as store:
        assert all(record.analysis is not None and record.analysis.ok for record in store.records())


def test_a_server_that_reports_usage_in_a_stream_is_judged_on_it(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(tmp_path, server, monkeypatch, 37, system_role="auto", concurrency=1)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=make_commit(38)))
    assert main(["analyze"]) == 0
    assert ["stream" in request.json for request in server.chat_requests] == [True, True]


@pytest.mark.parametrize(
    "broken",
    [Reply(drop=True), Reply(body=b"data: [DONE]\n\n", content_type="text/event-stream")],
    ids=["connection dropped", "stream ended before it began"],
)
def test_a_stream_that_fails_before_it_begins_is_asked_whole(
    broken: Reply, server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama-cpp-python over its context window drops a streamed request where it answers a whole
    one with a 400 that says its window (which shrinks the prompt)."""
    commit = _setup(tmp_path, server, monkeypatch, 35, max_retries=1, retry_backoff_seconds=0)
    server.script(commit.sha, broken, completion(analysis_content()))
    assert main(["analyze"]) == 0
    first, second = server.chat_requests_for(commit.sha)
    assert first.json["stream"] is True and "stream" not in second.json and "stream_options" not in second.json
    assert _stored(tmp_path, commit).analysis is not None


def test_a_text_or_a_list_past_what_the_schema_allows_is_stopped_as_it_streams(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SmolLM2-135M under llama-server's grammar (no length in it) wrote one phrase with no sentence
    end for 4,700 tokens until the timeout: no loop the floor's rule sees, but a text no valid
    reply holds. The same goes for a list past the schema's most items."""
    commit = _setup(tmp_path, server, monkeypatch, 41)
    endless = looping(START + '"-LlmInsights', "-LlmInsights")
    server.script(commit.sha, endless, endless)
    assert main(["analyze"]) == 1
    failure = _stored(tmp_path, commit).failure
    assert failure is not None
    assert "a text runs past 2,400 characters, longer than the schema allows" in (failure.error or "")
    assert failure.usage is not None and failure.usage.completion_tokens < 2_000
    items = json.dumps({"risks": [f"risk number {index} of many" for index in range(12)]})
    assert _fed(items) is None
    watch = LoopWatch(most_items=8)
    assert watch.feed(items) == "a list runs past 8 items, more than the schema allows"
    assert most_items_in({"response_format": {"schema": {"items": {"maxItems": 6}, "x": {"maxItems": 8}}}}) == 8


def test_translations_and_narratives_are_stopped_past_their_own_longest_text(server: FakeOpenAIServer) -> None:
    from commit_digest.analysis.briefing import BriefWriter
    from commit_digest.analysis.llm_client import LlmClient
    from commit_digest.analysis.narration import NarrativeWriter
    from commit_digest.analysis.translation import Translator
    from commit_digest.settings import DigestSettings, LlmSettings

    settings = DigestSettings(languages=["zh", "en"], llm=LlmSettings(base_url=server.base_url))
    client = LlmClient(settings.llm, api_key=API_KEY)
    assert Translator(client, settings).chat_request("s", "u", {}).longest_text == 2 * 2_000
    assert NarrativeWriter(client, settings).chat_request("s", "u", {}).longest_text == 2 * 1_500
    assert BriefWriter(client, settings).chat_request("s", "u", {}).longest_text == 2 * 400
    client.close()


@pytest.mark.parametrize(
    "data",
    ["[1]", "null", '"text"', '{"choices": 5}', '{"choices": [{"delta": {"content": 7}}]}', "{not json"],
)
def test_an_event_that_is_no_chunk_is_an_invalid_reply(data: str) -> None:
    from commit_digest.analysis.llm_errors import InvalidReplyError
    from commit_digest.analysis.llm_reply import StreamedReply

    with pytest.raises(InvalidReplyError):
        StreamedReply().add(data)


def test_the_lines_of_an_event_stream_other_than_data_are_left_alone() -> None:
    from commit_digest.analysis.llm_reply import event_data

    for line in (": ping", "event: message", "id: 3", "retry: 10", "", "data:", "data: [DONE]"):
        assert event_data(line) is None, line
    assert event_data('data:{"a": 1}') == '{"a": 1}'  # the space after the colon is optional


def test_a_stream_with_crlf_lines_comments_and_no_usage_is_read(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit = _setup(tmp_path, server, monkeypatch, 42)
    content = analysis_content()
    events = [
        ": keep-alive",
        "event: message",
        "data: " + json.dumps({"choices": [{"delta": {"content": content[:50]}}]}),
        "data:" + json.dumps({"choices": [{"delta": {"content": content[50:]}}]}),
        "data: " + json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}]}),
        "data: [DONE]",
    ]
    body = "".join(f"{line}\r\n\r\n" for line in events).encode()
    server.script(commit.sha, Reply(body=body, content_type="text/event-stream; charset=utf-8"))
    assert main(["analyze"]) == 0
    record = _stored(tmp_path, commit)
    assert record.analysis is not None and record.analysis.ok
