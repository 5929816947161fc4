"""A base URL with credentials (`http://user:password@gateway/v1`) never reaches the store, the
durable form, `show` or the run's output (issue 45): every text names the server without them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_errors import LlmUnavailableError
from commit_digest.cli import main
from commit_digest.models import CommitRecord
from commit_digest.settings import LlmSettings
from commit_digest.store.analysis_store import AnalysisStore
from tests.analysis.conftest import API_KEY, make_commit
from tests.fakes.openai_server import FakeOpenAIServer, analysis_content, completion, error

USER = "digest-bot"
PASSWORD = "GATEWAY-PASSWORD-4242"


def test_credentials_in_the_base_url_are_in_no_text_kept_or_shown(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commit = make_commit(9)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=commit))
    server.script(commit.sha, error(503, "upstream busy"), error(503, "upstream busy"))
    base_url = server.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
    options = {"cache_dir": "cache", "llm": {"base_url": base_url, "max_retries": 1, "retry_backoff_seconds": 0}}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "plugins": [{"commit-digest": options}]}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    assert main(["analyze"]) == 1
    assert main(["export", "-o", str(tmp_path / "export.jsonl")]) == 0
    assert main(["show", commit.sha]) == 0
    said = capsys.readouterr()
    with AnalysisStore(tmp_path / "cache") as store:
        record = store.get(commit.repository, commit.sha)
    assert record is not None and record.failure is not None
    failure = record.failure.error or ""
    assert "HTTP 503" in failure and server.base_url.removeprefix("http://").rstrip("/") in failure
    kept_or_shown = {
        "stored failure": failure,
        "export": (tmp_path / "export.jsonl").read_text(encoding="utf-8"),
        "output": said.out + said.err,
    }
    for where, text in kept_or_shown.items():
        assert PASSWORD not in text, where
        assert f"{USER}:" not in text and f"{USER}@" not in text, where


def test_a_reply_echoing_the_api_key_is_kept_with_the_key_redacted_and_counted_as_suspect(
    server: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before: a gateway echoing the request put the key into the store, the data branch and pages,
    and the run's summary said nothing of it."""
    commit = make_commit(10)
    with AnalysisStore(tmp_path / "cache") as store:
        store.merge(CommitRecord(commit=commit))
    echoed = analysis_content(summary=[f"网关在回复中回显了请求头 Authorization: Bearer {API_KEY}，这是调度器的修复。"])
    server.script(commit.sha, completion(echoed))
    options = {"cache_dir": "cache", "llm": {"base_url": server.base_url, "max_retries": 0}}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "plugins": [{"commit-digest": options}]}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    assert main(["analyze"]) == 0
    with AnalysisStore(tmp_path / "cache") as store:
        record = store.get(commit.repository, commit.sha)
    assert record is not None and record.analysis is not None and record.analysis.ok
    kept = record.model_dump_json()
    assert API_KEY not in kept and "[redacted]" in kept
    assert any("carried a credential" in message for message in caplog.messages)
    said = capsys.readouterr()
    assert "suspect replies: 1 carried a credential of this configuration" in said.err
    assert API_KEY not in said.out + said.err


def test_a_batch_file_is_utf8_or_invalid_and_kept_without_our_credentials(server: FakeOpenAIServer) -> None:
    """Before: a Batch API output file was read with U+FFFD for each byte that is no UTF-8 (the
    translation and narrative batches stored such text as ok), and a line echoing the key was kept."""
    client = LlmClient(LlmSettings(base_url=server.base_url, max_retries=0), api_key=API_KEY)
    echoing = server._store_file("out.jsonl", "batch_output", f'{{"line": 1}}\n{{"echo": "Bearer {API_KEY}"}}')
    assert client.file_text(echoing) == '{"line": 1}\n{"echo": "Bearer [redacted]"}\n'
    assert client.suspect_replies == 1
    broken = server._store_file("bad.jsonl", "batch_output", "")
    server.files[broken] = (server.files[broken][0], b'{"text": "caf\xe9"}\n')
    with pytest.raises(LlmUnavailableError, match="not valid UTF-8"):
        client.file_text(broken)
    client.close()
