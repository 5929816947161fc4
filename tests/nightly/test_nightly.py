"""`commit-digest nightly` end to end, night after night, against the local GitHub and OpenAI
servers: the real PyGithub and openai clients, a real store, a real strict MkDocs build."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.settings import read_mkdocs_yml
from tests.analysis.brief_replies import SENTENCES, asked_for, is_brief
from tests.analysis.narrative_replies import is_narrative, is_written, narratives_or
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakePull, FakeRepository
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder

PROJECT = Path(__file__).resolve().parents[2]
YESTERDAY_NOON = 12  # the number of the commit made at noon yesterday
REPOSITORY = "vllm-project/vllm"
API_KEY = "sk-nightly-test-SECRET-0123456789"
NOW = datetime.now(UTC).replace(microsecond=0)
# Files whose bytes legitimately change from one build to the next (the build manifest under
# .commit-digest/ names the store's revision, which a restored store has anew).
BUILD_STAMPED = {"status.json"}


def fake_commit(number: int, hours_ago: float) -> FakeCommit:
    title = [
        "[ROCm][AITER] Fix wrong argument passed to AITER attention",
        "[Bugfix] Fix bad words with speculative decoding",
        "[Model] Add Grok-2",
        "[Doc] Update release docs",
    ][number % 4]
    return FakeCommit(
        sha=f"{number:04x}" + "ab" * 18,
        message=f"{title} (#{40000 + number})\n\nDetails of change {number}.",
        committed_at=NOW - timedelta(hours=hours_ago),
        author_name=f"Dev {number}",
        author_login=f"dev{number}",
        files=[FakeFile(f"vllm/v1/core/file_{number}.py", additions=12, deletions=3, patch="@@ -1 +1 @@\n-a\n+b")],
    )


@dataclass
class Night:
    root: Path
    github: FakeGithubServer
    repository: FakeRepository
    llm: FakeOpenAIServer

    def configure(self) -> None:
        """The demo's mkdocs.yml pointed at the local servers."""
        config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
        config["site_url"] = "https://digest.example.org/"
        for entry in config["plugins"]:
            if isinstance(entry, dict) and "commit-digest" in entry:
                entry["commit-digest"].update(
                    cache_dir="cache",
                    repository=REPOSITORY,
                    # No retries: the LLM-outage night must not wait for back-offs.
                    llm={"base_url": self.llm.base_url, "max_retries": 0, "concurrency": 4, "timeout_seconds": 10},
                    github={"api_url": self.github.url, "default_days": 2},
                )
        text = yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
        (self.root / "mkdocs.yml").write_text(text, encoding="utf-8")

    @property
    def site(self) -> Path:
        return self.root / "site"

    def run(self) -> int:
        return main(
            [
                "nightly",
                "-f",
                str(self.root / "mkdocs.yml"),
                "--durable-dir",
                str(self.root / "data"),
                "--site-dir",
                str(self.site),
            ]
        )

    def pages(self) -> dict[str, bytes]:
        return {
            str(path.relative_to(self.site)): path.read_bytes()
            for path in sorted(self.site.rglob("*"))
            if path.is_file() and path.name not in BUILD_STAMPED and ".commit-digest" not in path.parts
        }

    def commit_page(self, number: int) -> str:
        return (self.site / "commits" / (f"{number:04x}" + "ab" * 4) / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Night]:
    root = tmp_path_factory.mktemp("nightly")
    shutil.copytree(PROJECT / "docs", root / "docs")
    with FakeGithubServer() as github:
        repository = github.add_repository(REPOSITORY)
        for number in range(12):
            repository.add_commit(fake_commit(number, hours_ago=1 + number * 1.5))
            repository.add_pull(FakePull(40000 + number, body="PR description", labels=["ready"]))
        # And one at noon yesterday (inside the two days fetched), whatever the hour: a completed
        # day the first night briefs.
        now = datetime.now(UTC)
        repository.add_commit(fake_commit(YESTERDAY_NOON, hours_ago=now.hour + now.minute / 60 + 12))
        repository.add_pull(FakePull(40000 + YESTERDAY_NOON, body="PR description", labels=["ready"]))
        # Narrative requests answered too: on a Monday just after midnight the first night's
        # commits may lie in the week just completed, which the night then narrates.
        night = Night(root, github, repository, FakeOpenAIServer(narratives_or(analysis_responder())).start())
        night.configure()
        try:
            yield night
        finally:
            night.llm.stop()


@pytest.fixture(autouse=True)
def _night_environment(night: Night, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(night.root)  # gen-files scripts are relative to the site's folder
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def test_first_night_fetches_analyses_and_builds(night: Night, capsys: pytest.CaptureFixture[str]) -> None:
    assert night.run() == 0
    assert len([request for request in night.llm.chat_requests if not is_written(request.json)]) == 13
    assert (night.root / "data" / "manifest.json").exists()
    assert list((night.root / "data" / "vllm-project" / "vllm").glob("*.jsonl"))
    page = night.commit_page(1)
    assert "修复了调度器在抢占时丢失请求的问题。" in page  # the LLM's analysis
    assert (night.site / "status.json").exists()
    assert (night.site / "404.html").exists()
    output = capsys.readouterr()
    assert "nightly: complete" in output.err
    # Yesterday, a completed day, gets its briefs after the analyses, saved with them, and its
    # day page leads with the whole day's.
    assert "brief: briefed" in output.err
    briefs = [request for request in night.llm.chat_requests if is_brief(request.json)]
    assert briefs
    assert list((night.root / "data" / "briefs").glob("*.jsonl"))
    day = asked_for(briefs[0].message("user"))[0]
    assert SENTENCES["zh"][0] in (night.site / "days" / day / "index.html").read_text(encoding="utf-8")


def test_second_night_with_nothing_new_costs_nothing(night: Night) -> None:
    llm_before, github_before = len(night.llm.chat_requests), len(night.github.requests)
    assert night.run() == 0
    assert len(night.llm.chat_requests) == llm_before
    assert len(night.github.requests) - github_before <= 2


def test_a_lost_store_is_restored_from_the_durable_form_alone(night: Night) -> None:
    before = night.pages()
    llm_before = len(night.llm.chat_requests)
    shutil.rmtree(night.root / "cache")
    assert night.run() == 0
    assert len(night.llm.chat_requests) == llm_before
    after = night.pages()
    assert sorted(after) == sorted(before)
    changed = [name for name in before if before[name] != after[name]]
    assert changed == []


def test_a_night_with_the_llm_down_publishes_and_marks_the_new_commits(
    night: Night, capsys: pytest.CaptureFixture[str]
) -> None:
    for number in (20, 21):
        night.repository.add_commit(fake_commit(number, hours_ago=0.2))
    old_page = night.commit_page(1)
    night.llm.stop()  # nothing listens on its port any more
    assert night.run() == 1
    assert "nightly: partial" in capsys.readouterr().err
    assert night.commit_page(1) == old_page
    new_page = night.commit_page(20)
    # The offline analysis is shown, with a note that the LLM's failed and will be retried.
    assert "此处显示的是离线分析" in new_page and "未能完成分析" in new_page and "下次运行时会重试" in new_page

    # The next night the LLM is back: exactly the two marked commits are analysed.
    night.llm = FakeOpenAIServer(narratives_or(analysis_responder())).start()
    night.configure()
    assert night.run() == 0
    assert len([request for request in night.llm.chat_requests if not is_written(request.json)]) == 2
    assert "此处显示的是离线分析" not in night.commit_page(20)


def test_no_secret_and_no_store_file_reaches_the_site_the_store_or_the_data(night: Night) -> None:
    for folder in (night.site, night.root / "cache", night.root / "data"):
        for path in folder.rglob("*"):
            if path.is_file():
                assert API_KEY.encode() not in path.read_bytes(), path
    published = [path.name for path in night.site.rglob("*") if path.is_file()]
    assert not [name for name in published if name.endswith((".jsonl", ".db", ".db-wal", ".val"))]


def test_a_night_narrates_each_completed_week_once_and_an_offline_night_skips_it(
    night: Night, capsys: pytest.CaptureFixture[str]
) -> None:
    from commit_digest.models import Analysis, CommitRecord, Importance, Provenance
    from commit_digest.site.model.calendar import IsoWeek
    from commit_digest.store.analysis_store import AnalysisStore
    from tests.analysis.narrative_replies import NARRATIVE_TEXTS
    from tests.factories import make_commit

    # Three ROCm commits of the last completed week, analysed by an earlier night.
    last = IsoWeek.of(NOW.date()).previous
    with AnalysisStore(night.root / "cache") as store:
        for number in range(60, 63):
            landed = datetime(last.monday.year, last.monday.month, last.monday.day, 9, number - 60, tzinfo=UTC)
            commit = make_commit(
                number, title=f"[ROCm] Fix attention kernel {number} (#{41000 + number})", when=landed
            ).model_copy(update={"sha": f"{number:04x}" + "cd" * 18})  # short shas of their own: their own pages
            analysis = Analysis(
                importance=Importance.HIGH,
                summary=("修复了 ROCm 注意力内核。",),
                provenance=Provenance(analyzer="offline", created_at=landed),
            )
            store.merge(CommitRecord(commit=commit, analysis=analysis))
    night.llm.responder = narratives_or(analysis_responder())
    before = len(night.llm.chat_requests)
    assert night.run() == 0
    narrated = [request for request in night.llm.chat_requests[before:] if is_narrative(request.json)]
    assert len(narrated) == 1 and f"Week: {last.id} " in narrated[0].message("user")
    output = capsys.readouterr().err
    assert f"narrate: {last.id} rocm: written from" in output
    (year_file,) = (night.root / "data" / "narratives").glob("*.jsonl")
    assert NARRATIVE_TEXTS["zh"] in year_file.read_text(encoding="utf-8")
    assert API_KEY not in year_file.read_text(encoding="utf-8") + output

    # The next night pays for nothing; a night without an LLM skips the step and stays complete.
    before = len(night.llm.chat_requests)
    assert night.run() == 0
    assert len(night.llm.chat_requests) == before
    arguments = ["nightly", "-f", str(night.root / "mkdocs.yml"), "--durable-dir", str(night.root / "data")]
    assert main([*arguments, "--site-dir", str(night.site), "--offline", "--no-fetch"]) == 0
    assert "narrate: skipped (--offline)" in capsys.readouterr().err
    assert len(night.llm.chat_requests) == before
