"""The output limit is what the longest valid reply can take (issue 45), not a flat 4,000: no reply
within the schema's caps is ever cut off, a reply that goes round in circles is stopped by the
loop watch instead (test_streamed_replies), and a model that writes less says so once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commit_digest.analysis.diff_budget import estimate_tokens
from commit_digest.analysis.prompt import strict_reply_schema
from commit_digest.analysis.reply_size import longest_reply_tokens
from commit_digest.cli import main
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import cli_project, make_commit
from tests.analysis.test_reply_caps import at_caps
from tests.fakes.openai_server import FakeOpenAIServer, error


@pytest.mark.parametrize("languages", [("zh",), ("en",), ("zh", "en"), ("en", "zh")])
def test_the_limit_holds_the_longest_reply_the_schema_allows(languages: tuple[str, ...]) -> None:
    schema = strict_reply_schema(languages)  # type: ignore[arg-type]
    longest = estimate_tokens(json.dumps(at_caps(schema, languages[0]), ensure_ascii=False))
    limit = longest_reply_tokens(schema, languages[0])
    assert longest <= limit <= 1.1 * longest


def _analyze(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, index: int, **llm: object):
    commit = make_commit(index)
    cli_project(tmp_path, monkeypatch, [commit], {"base_url": server.base_url, "max_retries": 0, **llm})
    return commit, main(["analyze"])


def test_unless_set_the_limit_is_the_longest_valid_reply_and_a_set_one_is_kept(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit, code = _analyze(tmp_path / "default", server, monkeypatch, 31)
    assert code == 0
    (request,) = server.chat_requests_for(commit.sha)
    assert request.json["max_completion_tokens"] == longest_reply_tokens(strict_reply_schema(("zh",)), "zh")
    commit, code = _analyze(tmp_path / "set", server, monkeypatch, 32, max_output_tokens=1500)
    assert code == 0 and server.chat_requests_for(commit.sha)[0].json["max_completion_tokens"] == 1500


def test_a_model_that_writes_less_says_so_once_and_is_asked_for_no_more(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI's gpt-4o-mini writes at most 16,384 tokens and refuses a request for more."""
    wanted = longest_reply_tokens(strict_reply_schema(("zh",)), "zh")
    first = make_commit(33)
    refusal = (
        f"max_tokens is too large: {wanted}. This model supports at most 4096 completion tokens, "
        f"whereas you provided {wanted}."
    )
    server.script(first.sha, error(400, refusal))
    commit, code = _analyze(tmp_path, server, monkeypatch, 33)
    assert code == 0
    asked = [request.json["max_completion_tokens"] for request in server.chat_requests_for(commit.sha)]
    assert asked == [wanted, 4096]
    later = make_commit(34)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=later))
    assert main(["analyze"]) == 0
    assert [request.json["max_completion_tokens"] for request in server.chat_requests_for(later.sha)] == [4096]
