"""`nightly` checks its whole configuration before it fetches or pays for anything, takes its
repository from mkdocs.yml, and reads an empty environment variable as an unset one."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest import environment
from commit_digest.analysis.llm_client import DEFAULT_BASE_URL, LlmClient
from commit_digest.cli import main
from commit_digest.settings import LlmSettings, read_mkdocs_yml
from tests.analysis.narrative_replies import is_written, narratives_or
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder

PROJECT = Path(__file__).resolve().parents[2]
FOLLOWED = "acme-labs/rocket"
OTHER = "vllm-project/vllm"
NOW = datetime.now(UTC).replace(microsecond=0)


def commit(number: int, repository: str) -> FakeCommit:
    return FakeCommit(
        sha=f"{number:04x}" + ("cd" if repository == FOLLOWED else "ef") * 18,
        message=f"[Core] Change {number} of {repository}",
        committed_at=NOW - timedelta(hours=1 + number),
        author_name=f"Dev {number}",
        author_login=f"dev{number}",
        files=[FakeFile(f"src/file_{number}.py", additions=3, deletions=1, patch="@@ -1 +1 @@\n-a\n+b")],
    )


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGithubServer]:
    with FakeGithubServer() as server:
        for repository in (FOLLOWED, OTHER):
            fake = server.add_repository(repository)
            for number in range(3):
                fake.add_commit(commit(number, repository))
        yield server


@pytest.fixture
def site(tmp_path: Path, github: FakeGithubServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped mkdocs.yml with another repository, as README's setup has an operator write it."""
    root = tmp_path / "site-repo"
    shutil.copytree(PROJECT / "docs", root / "docs")
    write_config(root, repository=FOLLOWED, github={"api_url": github.url, "default_days": 2})
    monkeypatch.chdir(root)
    github.clear_requests()
    return root


def write_config(root: Path, **options: Any) -> None:
    config = read_mkdocs_yml(PROJECT / "mkdocs.yml")
    config["site_url"] = "https://digest.example.org/"
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].update(cache_dir="cache", **options)
            for key, value in options.items():
                if value is None:
                    del entry["commit-digest"][key]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")


def night(*extra: str) -> int:
    return main(["nightly", "--durable-dir", "data", "--site-dir", "site", "--offline", *extra])


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("commit-digest nightly: error: "), err
    return lines[0]


def assert_nothing_spent(root: Path, github: FakeGithubServer) -> None:
    assert github.count() == 0
    assert not (root / "cache").exists()
    assert not (root / "data").exists()
    assert not (root / "site").exists()


def test_no_mkdocs_yml_ends_the_night_before_anything(
    tmp_path: Path, github: FakeGithubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    github.clear_requests()
    assert night("--repo", FOLLOWED) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "config file mkdocs.yml does not exist: nightly builds the site from it" in line
    assert_nothing_spent(tmp_path, github)


def test_a_broken_mkdocs_setting_is_named_before_anything(
    site: Path, github: FakeGithubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    config = read_mkdocs_yml(site / "mkdocs.yml")
    config["theme"]["name"] = "no-such-theme"
    (site / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    assert night() == 2
    line = one_error_line(capsys.readouterr().err)
    assert "mkdocs.yml" in line and "theme" in line and "no-such-theme" in line
    assert_nothing_spent(site, github)


def test_mkdocs_yml_must_name_the_repository(
    site: Path, github: FakeGithubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(site, repository=None)
    assert night() == 2
    assert "names no repository: set repository: OWNER/NAME" in one_error_line(capsys.readouterr().err)
    assert_nothing_spent(site, github)


@pytest.mark.parametrize("base_url", ["api.example.com/v1", "ftp://gateway/v1", "http://"])
def test_an_llm_address_that_is_no_http_address_is_refused_before_anything(
    site: Path,
    github: FakeGithubServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    base_url: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    assert main(["nightly", "--durable-dir", "data", "--site-dir", "site"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "OPENAI_BASE_URL" in line and "is not an http(s) address" in line
    assert_nothing_spent(site, github)


def test_an_empty_model_name_is_refused_before_anything(
    site: Path, github: FakeGithubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(site, repository=FOLLOWED, llm={"model": " "})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert main(["nightly", "--durable-dir", "data", "--site-dir", "site"]) == 2
    assert "llm.model is empty" in one_error_line(capsys.readouterr().err)
    assert_nothing_spent(site, github)


def test_a_site_folder_that_is_a_file_is_refused_before_anything(
    site: Path, github: FakeGithubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (site / "site").write_text("not a folder")
    assert night() == 2
    assert "is not a folder" in one_error_line(capsys.readouterr().err)
    assert github.count() == 0 and not (site / "cache").exists()


def test_repo_that_the_site_does_not_follow_is_refused(
    site: Path, github: FakeGithubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert night("--repo", OTHER) == 2
    line = one_error_line(capsys.readouterr().err)
    assert f"--repo {OTHER} is not a repository of this site (mkdocs.yml follows {FOLLOWED})" in line
    assert_nothing_spent(site, github)


def test_digest_repository_naming_another_repository_is_said_and_mkdocs_yml_is_used(
    site: Path, github: FakeGithubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DIGEST_REPOSITORY", OTHER)
    assert night() == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "DIGEST_REPOSITORY" in line]
    assert said == [
        f"nightly: DIGEST_REPOSITORY names {OTHER}, mkdocs.yml names {FOLLOWED}: using {FOLLOWED}, because the "
        "site is built from mkdocs.yml (set repository there to follow another; clear the variable to silence "
        "this line)"
    ]
    assert err.index("DIGEST_REPOSITORY") < err.index("fetch")  # said before anything is fetched
    fetched = {
        "/".join(request.path.split("/")[2:4]) for request in github.requests if request.path.startswith("/repos/")
    }
    assert fetched == {FOLLOWED}
    assert sorted(path.name for path in (site / "data").glob("*/*")) == ["rocket"]


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_digest_repository_is_unset(
    site: Path,
    github: FakeGithubServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    blank: str,
) -> None:
    monkeypatch.setenv("DIGEST_REPOSITORY", blank)
    assert night("--no-fetch") == 0
    assert "DIGEST_REPOSITORY" not in capsys.readouterr().err


@pytest.mark.parametrize("blank", ["", " ", "\n"])
def test_an_empty_openai_base_url_is_the_default_server(monkeypatch: pytest.MonkeyPatch, blank: str) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", blank)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    client = LlmClient(LlmSettings())
    try:
        assert client.base_url.rstrip("/") == DEFAULT_BASE_URL
    finally:
        client.close()


def test_an_empty_api_key_is_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", " ")
    assert environment.value("OPENAI_API_KEY") is None
    environ = {"OPENAI_API_KEY": " ", "GITHUB_TOKEN": "", "SITE_URL": "https://x/", "OTHER": ""}
    assert environment.drop_blank(environment.PRODUCT_VARIABLES, environ) == ["OPENAI_API_KEY", "GITHUB_TOKEN"]
    assert environ == {"SITE_URL": "https://x/", "OTHER": ""}


def test_an_empty_base_url_secret_still_reaches_the_server_of_llm_base_url(
    site: Path, github: FakeGithubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The workflow passes OPENAI_BASE_URL from a secret an OpenAI user leaves unset: ''."""
    with FakeOpenAIServer(narratives_or(analysis_responder())) as llm:
        write_config(
            site,
            repository=FOLLOWED,
            github={"api_url": github.url, "default_days": 2},
            llm={"base_url": llm.base_url, "max_retries": 0},
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", "")
        assert main(["nightly", "--durable-dir", "data", "--site-dir", "site"]) == 0
        assert len([request for request in llm.chat_requests if not is_written(request.json)]) == 3
    assert "cannot reach" not in capsys.readouterr().err


def test_the_cli_takes_empty_product_variables_out_before_any_library_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in environment.PRODUCT_VARIABLES:
        monkeypatch.setenv(name, "" if name != "SITE_URL" else "  ")
    monkeypatch.setenv("UNRELATED_EMPTY", "")
    assert main(["stats"]) == 0
    assert not set(environment.PRODUCT_VARIABLES) & set(os.environ)
    assert os.environ["UNRELATED_EMPTY"] == ""
