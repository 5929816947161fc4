"""Fixtures for the LLM analysis tests: one fake OpenAI server per module, reset per test,
and commits with realistic files and patches built directly with models.Commit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import Commit, CommitRecord, FileChange, FileStatus, PatchState, PullRequestInfo
from commit_digest.settings import DigestSettings, LlmSettings
from commit_digest.store.analysis_store import AnalysisStore
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder

API_KEY = "sk-test-0123456789abcdefSECRET"
FIXED_NOW = datetime(2026, 1, 9, 8, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def module_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def server(module_server: FakeOpenAIServer) -> FakeOpenAIServer:
    module_server.reset()
    module_server.responder = analysis_responder()
    module_server.latency = 0.0
    module_server.batch_status = "completed"
    module_server.batch_expire_after = None
    return module_server


@pytest.fixture
def cache_dir(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store folder, with the environment pointing the CLI's openai client at the fake server."""
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    return tmp_path / "cache"


def write_config(folder: Path, text: str) -> Path:
    """An mkdocs.yml with ``text`` in ``folder``, for commands run with ``-f``."""
    path = folder / "mkdocs.yml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def sleeps() -> list[float]:
    """The waits the client asked for; nothing really sleeps."""
    return []


def make_settings(base_url: str, **llm: object) -> DigestSettings:
    values: dict[str, object] = {"base_url": base_url, "timeout_seconds": 0.5, "max_retries": 3, **llm}
    return DigestSettings(llm=LlmSettings.model_validate(values))


@pytest.fixture
def settings(server: FakeOpenAIServer) -> DigestSettings:
    return make_settings(server.base_url)


def make_analyzer(settings: DigestSettings, sleeps: list[float]) -> tuple[LlmAnalyzer, LlmClient]:
    client = LlmClient(settings.llm, api_key=API_KEY, sleep=sleeps.append, jitter=lambda: 1.0)
    analyzer = LlmAnalyzer(client, settings, load_taxonomy(), clock=lambda: FIXED_NOW)
    return analyzer, client


@pytest.fixture
def analyzer(settings: DigestSettings, sleeps: list[float]) -> Iterator[LlmAnalyzer]:
    made, client = make_analyzer(settings, sleeps)
    yield made
    client.close()


def patch_of(lines: int, name: str = "x") -> str:
    body = "\n".join(
        f"+    {name}_{index} = compute_{name}(tensor, scale={index})  # kernel tuning" for index in range(lines)
    )
    return f"@@ -1,3 +1,{lines + 3} @@\n def f():\n     pass\n{body}"


def make_commit(
    number: int,
    *,
    title: str | None = None,
    body: str = "",
    files: tuple[FileChange, ...] | None = None,
    description: str = "",
) -> Commit:
    landed = datetime(2026, 1, 8, 12, 0, tzinfo=UTC) + timedelta(minutes=number)
    pr = 31000 + number
    return Commit(
        repository="vllm-project/vllm",
        sha=f"{number:040x}",
        author_name=f"Author {number}",
        author_login=f"author{number}",
        authored_at=landed - timedelta(hours=1),
        committed_at=landed,
        title=title or f"[ROCm][Kernel] Tune fused MoE kernel number {number} (#{pr})",
        body=body,
        files=files
        if files is not None
        else (
            FileChange(
                path="vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py",
                additions=40,
                deletions=5,
                patch=patch_of(40, "moe"),
                patch_state=PatchState.INCLUDED,
            ),
            FileChange(
                path="tests/kernels/moe/test_moe.py",
                status=FileStatus.ADDED,
                additions=12,
                patch=patch_of(12, "test"),
                patch_state=PatchState.INCLUDED,
            ),
            FileChange(
                path="uv.lock",
                additions=300,
                deletions=200,
                patch=patch_of(30, "lock"),
                patch_state=PatchState.INCLUDED,
            ),
        ),
        pull_request=PullRequestInfo(number=pr, description=description, labels=("rocm",)) if description else None,
    )


def cli_project(
    folder: Path, monkeypatch: pytest.MonkeyPatch, commits: list[Commit], llm: dict[str, object], **options: object
) -> None:
    """A store (``folder``/cache) holding ``commits``, an mkdocs.yml whose plugin block has ``llm``
    and ``options``, the CLI run from ``folder`` with the test key: a project as a user has it."""
    with AnalysisStore(folder / "cache") as store:
        for commit in commits:
            store.merge(CommitRecord(commit=commit))
    plugin = {"cache_dir": "cache", "llm": llm, **options}
    (folder / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "plugins": [{"commit-digest": plugin}]}))
    monkeypatch.chdir(folder)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
