"""The nightly workflow rehearsed as GitHub runs it, two nights in a row, for a repository other
than vLLM that only mkdocs.yml names.

Each night is a fresh runner: a fresh checkout (cloned from a local bare repository that is also
the `origin` the data branch is pushed to), the workflow's own Install step (`python -m pip
install .`, no extras; pip reads only the offline wheelhouse) into a Python with nothing
installed on the first night (the second night's installs over the first's, to save a minute),
the runner's `GITHUB_*` variables, and every secret and variable the operator did not set given
as an empty string. The GitHub REST API and the OpenAI-compatible server are the test's scripted
servers on 127.0.0.1. The Actions cache is kept between the nights as GitHub keeps it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.analysis.narrative_replies import is_written, narratives_or
from tests.deploy.actions import Action, Job, StepFailed, load_workflow, run_job, runner_environment
from tests.fakes.github_server import FakeCommit, FakeFile, FakeGithubServer, FakePull
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder
from tests.install import clean_checkout as install

pytestmark = pytest.mark.slow

FOLLOWED = "acme-labs/rocket"
SITE_NAME = "Rocket 每日提交摘要"
SITE_REPOSITORY = "acme-labs/rocket-digest"  # the fork that runs the workflow
API_KEY = "sk-rehearsal-SECRET-4242"
GITHUB_TOKEN = "ghs_rehearsalTOKEN0000"
NOW = datetime.now(UTC).replace(microsecond=0)
FIRST_NIGHT, SECOND_NIGHT = 6, 3


def fake_commit(number: int, hours_ago: float) -> FakeCommit:
    title = ["[Core] Speed up the launch sequence", "[Bugfix] Fix the fuel gauge", "[Doc] Explain staging"][number % 3]
    return FakeCommit(
        sha=f"{number:04x}" + "5a" * 18,
        message=f"{title} (#{700 + number})\n\nDetails of change {number}.",
        committed_at=NOW - timedelta(hours=hours_ago),
        author_name=f"Engineer {number}",
        author_login=f"engineer{number}",
        files=[FakeFile(f"rocket/stage_{number}.py", additions=8, deletions=2, patch="@@ -1 +1 @@\n-a\n+b")],
    )


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@dataclass
class Night:
    job: Job
    seconds: float
    github_requests: list[str]
    analysis_requests: int
    narrative_requests: int

    def step(self, name: str) -> str:
        return next(result.outcome for result in self.job.results if result.name == name)

    def log(self) -> str:
        return "\n".join(f"== {result.name}: {result.outcome}\n{result.output}" for result in self.job.results)


@dataclass
class Rehearsal:
    root: Path
    origin: Path
    github: FakeGithubServer
    llm: FakeOpenAIServer
    cache_store: Path
    nights: list[Night]

    def night(self, number: int) -> Night:
        runner = self.root / f"runner-{number}"
        workspace = runner / "work" / "rocket-digest"
        artifacts: list[Path] = []
        # The first night's Python is new and empty; the second night's runner gets it back with what the
        # first installed (as setup-python's pip cache would make that install quick), and installs again.
        toolcache = self.root / "python" / "bin"
        if not toolcache.exists():
            toolcache = install.clean_venv(
                self.root / "python", install.offline_pip_environment({"PATH": "/usr/bin:/bin"})
            )
        environment = runner_environment(
            workspace=workspace,
            home=runner / "home",
            path="/usr/local/bin:/usr/bin:/bin",
            repository=SITE_REPOSITORY,
            api_url=self.github.url,
            run_id=1000 + number,
        )
        job = Job(
            workspace=workspace,
            # The operator set these two (README, step 2); everything else is unset.
            secrets={"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": self.llm.base_url},
            variables={},
            github={"token": GITHUB_TOKEN, "run_id": str(1000 + number), "repository": SITE_REPOSITORY},
            environment=install.offline_pip_environment(environment),
        )
        actions: Mapping[str, Action] = {
            "actions/checkout": lambda inputs, job: self._checkout(job),
            "actions/setup-python": lambda inputs, job: _setup_python(job, toolcache),
            "actions/cache": lambda inputs, job: _cache(self.cache_store, inputs, job),
            "actions/upload-pages-artifact": lambda inputs, job: _upload(inputs, job, artifacts),
        }
        self.github.clear_requests()
        asked = len(self.llm.chat_requests)
        started = time.perf_counter()
        run_job(load_workflow(workspace_source(self.root) / ".github/workflows/nightly.yml"), "update", job, actions)
        seconds = time.perf_counter() - started
        requests = self.llm.chat_requests[asked:]
        narratives = sum(1 for request in requests if is_written(request.json))
        night = Night(
            job,
            seconds,
            [request.path for request in self.github.requests],
            len(requests) - narratives,
            narratives,
        )
        self.nights.append(night)
        return night

    def _checkout(self, job: Job) -> str:
        job.workspace.parent.mkdir(parents=True, exist_ok=True)
        return git("clone", "--quiet", "--branch", "main", str(self.origin), str(job.workspace))

    def data_branch(self, *args: str) -> str:
        return git("--git-dir", str(self.origin), *args)


def workspace_source(root: Path) -> Path:
    return root / "source"


def _setup_python(job: Job, toolcache: Path) -> str:
    job.environment["PATH"] = f"{toolcache}:{job.environment['PATH']}"
    return f"python from {toolcache}"


def _cache(store: Path, inputs: Mapping[str, str], job: Job) -> str:
    """actions/cache: restore the exact key or the newest entry a restore key starts, save after the
    job under the key when it was no exact hit."""
    key = inputs["key"]
    paths = [line.strip() for line in inputs["path"].splitlines() if line.strip()]
    prefixes = [line.strip() for line in inputs.get("restore-keys", "").splitlines() if line.strip()]
    entries = sorted(store.iterdir(), key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
    hit = next((entry for entry in entries if entry.name == key), None) or next(
        (entry for entry in entries for prefix in prefixes if entry.name.startswith(prefix)), None
    )
    if hit is not None:
        for path in paths:
            if (hit / path).exists():
                shutil.copytree(hit / path, job.workspace / path, symlinks=True, dirs_exist_ok=True)
    if hit is None or hit.name != key:

        def save(job: Job) -> None:
            if job.failed:
                return  # actions/cache saves only after a successful job
            for path in paths:
                if (job.workspace / path).exists():
                    shutil.copytree(job.workspace / path, store / key / path, symlinks=True)
            (store / key).mkdir(exist_ok=True)

        job.post_steps.append(save)
    return f"restored {hit.name}" if hit is not None else "cache miss"


def _upload(inputs: Mapping[str, str], job: Job, artifacts: list[Path]) -> str:
    folder = job.workspace / inputs["path"]
    if not (folder / "index.html").is_file():
        raise StepFailed(f"{folder} holds no index.html")
    artifacts.append(folder)
    return f"uploaded {folder}"


def operators_config(source: Path) -> None:
    """README's setup, step 1, for another repository: mkdocs.yml names it, its site and its pages."""
    text = (source / "mkdocs.yml").read_text(encoding="utf-8")
    replacements = {
        "site_name:": f"site_name: {SITE_NAME}",
        "repo_url:": f"repo_url: https://github.com/{FOLLOWED}",
        "repo_name:": f"repo_name: {FOLLOWED}",
    }
    lines = []
    for line in text.splitlines():
        for prefix, replacement in replacements.items():
            if line.startswith(prefix):
                line = replacement
        if line.strip() == "repository: vllm-project/vllm":
            line = line.replace("vllm-project/vllm", FOLLOWED)
        lines.append(line)
    (source / "mkdocs.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert f"repository: {FOLLOWED}" in (source / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rehearsal]:
    if not install.WHEELHOUSE_COMPLETE.is_file():
        pytest.fail(install.MISSING_WHEELHOUSE)
    root = tmp_path_factory.mktemp("rehearsal")
    source = install.checkout_copy(workspace_source(root))
    operators_config(source)
    git("-c", "user.name=op", "-c", "user.email=op@example.com", "commit", "-qam", "Follow rocket", cwd=source)
    origin = root / "origin.git"
    git("clone", "--quiet", "--bare", str(source), str(origin))
    cache_store = root / "actions-cache"
    cache_store.mkdir()
    with FakeGithubServer() as github:
        repository = github.add_repository(FOLLOWED)
        vllm = github.add_repository("vllm-project/vllm")  # what the old workflow fetched whatever mkdocs.yml said
        for number in range(FIRST_NIGHT):
            repository.add_commit(fake_commit(number, hours_ago=2 + number * 2))
            repository.add_pull(FakePull(700 + number, body="PR description", labels=["ready"]))
            vllm.add_commit(fake_commit(100 + number, hours_ago=3 + number))
        with FakeOpenAIServer(narratives_or(analysis_responder())) as llm:
            rehearsal = Rehearsal(root, origin, github, llm, cache_store, [])
            rehearsal.night(1)
            for number in range(FIRST_NIGHT, FIRST_NIGHT + SECOND_NIGHT):
                repository.add_commit(fake_commit(number, hours_ago=1.5 - (number - FIRST_NIGHT) * 0.25))
            rehearsal.night(2)
            yield rehearsal


def test_each_night_runs_every_step_of_the_workflow_and_exits_0(rehearsal: Rehearsal) -> None:
    for night in rehearsal.nights:
        outcomes = {result.name: result.outcome for result in night.job.results}
        assert night.job.steps["nightly"].outputs == {"status": "0"}, night.log()
        assert outcomes["Install"] == "success", night.log()
        assert outcomes["Save the durable data"] == "success", night.log()
        assert outcomes["Leave the build's state out of what Pages publishes"] == "success", night.log()
        # The rclone steps are for DEPLOY_TARGET=rclone, a variable left unset: ''.
        assert outcomes["Install rclone"] == "skipped"
        assert not night.job.failed, night.log()
        assert "nightly: complete" in night.log()


def test_only_the_repository_of_mkdocs_yml_is_fetched_and_analysed(rehearsal: Rehearsal) -> None:
    first, second = rehearsal.nights
    for night in (first, second):
        repositories = {"/".join(path.split("/")[2:4]) for path in night.github_requests if path.startswith("/repos/")}
        assert repositories == {FOLLOWED}, night.github_requests
    assert first.analysis_requests == FIRST_NIGHT
    # The second night is incremental: only the new commits are asked for.
    assert second.analysis_requests == SECOND_NIGHT
    assert "DIGEST_REPOSITORY" not in first.log()  # the unset variable ('') says nothing


def test_the_durable_form_and_its_manifest_are_pushed_to_the_data_branch(rehearsal: Rehearsal) -> None:
    files = rehearsal.data_branch("ls-tree", "-r", "--name-only", "digest-data").split()
    assert "manifest.json" in files
    months = [name for name in files if name.endswith(".jsonl") and name.startswith(f"{FOLLOWED}/")]
    assert months and all(not name.startswith("vllm-project/") for name in files)
    shas = set()
    for month in months:
        for line in rehearsal.data_branch("show", f"digest-data:{month}").splitlines():
            shas.add(json.loads(line)["commit"]["sha"])
    assert len(shas) == FIRST_NIGHT + SECOND_NIGHT
    manifest = json.loads(rehearsal.data_branch("show", "digest-data:manifest.json"))
    assert set(manifest["files"]) >= set(months)
    # One data commit a night, each on top of the last.
    assert len(rehearsal.data_branch("log", "--format=%H", "digest-data").split()) == 2
    # The token never reaches the data branch.
    assert GITHUB_TOKEN not in rehearsal.data_branch("log", "-p", "digest-data")
    assert API_KEY not in rehearsal.data_branch("log", "-p", "digest-data")


def test_the_site_is_built_with_the_configured_name(rehearsal: Rehearsal) -> None:
    published = rehearsal.nights[-1].job.workspace / "published"
    home = (published / "index.html").read_text(encoding="utf-8")
    assert f"<title>{SITE_NAME}</title>" in home or f"{SITE_NAME}</title>" in home
    assert not list(published.rglob(".commit-digest"))
    # SITE_URL unset (''): the Pages address of the repository running the workflow.
    assert "https://acme-labs.github.io/rocket-digest/" in (published / "sitemap.xml").read_text(encoding="utf-8")
    for commit in range(FIRST_NIGHT + SECOND_NIGHT):
        assert (published / "commits" / (f"{commit:04x}" + "5a" * 4) / "index.html").is_file()


def test_the_second_night_restores_the_actions_cache(rehearsal: Rehearsal) -> None:
    first, second = rehearsal.nights
    restore = "Restore the working store and last site (accelerators only; the data branch is the truth)"
    assert next(r.output for r in first.job.results if r.name == restore) == "cache miss"
    assert next(r.output for r in second.job.results if r.name == restore).startswith("restored digest-store-")


def installed_run(rehearsal: Rehearsal, *arguments: str, cwd: Path) -> str:
    """A program of the Python the workflow's Install step installed into (no extras)."""
    python = rehearsal.root / "python" / "bin"
    environment = {**install.offline_pip_environment({"PATH": f"{python}:/usr/bin:/bin"}), "HOME": str(rehearsal.root)}
    done = subprocess.run(
        [str(python / arguments[0]), *arguments[1:]],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_install_step_gives_a_cli_whose_every_module_imports_and_every_command_answers(
    rehearsal: Rehearsal, tmp_path: Path
) -> None:
    """`python -m pip install .`, no extras, in a venv that had nothing: the same checks as the
    wheel's in tests/install/test_clean_install.py (both nights built the site through the plugin)."""
    imported = installed_run(rehearsal, "python", "-c", install.IMPORT_EVERY_MODULE, *install.PACKAGES, cwd=tmp_path)
    assert set(imported.split()) == install.modules_in(workspace_source(rehearsal.root))
    answers = installed_run(rehearsal, "python", "-c", install.EVERY_COMMAND_HELP, cwd=tmp_path).splitlines()
    assert {"demo 0 usage", "build 0 usage", "nightly 0 usage"} <= set(answers)
    assert [answer for answer in answers if not answer.endswith(" 0 usage")] == []
    anywhere = tmp_path / "anywhere"
    anywhere.mkdir()
    installed_run(rehearsal, "commit-digest", "demo", "--site-dir", "demo", cwd=anywhere)
    assert (anywhere / "demo" / "index.html").is_file()
    assert sorted(path.name for path in anywhere.iterdir()) == ["demo"]  # demo from anywhere writes only that


def test_secrets_never_reach_the_log(rehearsal: Rehearsal) -> None:
    for night in rehearsal.nights:
        assert API_KEY not in night.log()
        assert GITHUB_TOKEN not in night.log()
        print(
            f"night: {night.seconds:.1f} s, {len(night.github_requests)} GitHub requests, "
            f"{night.analysis_requests} analyses, {night.narrative_requests} narratives and briefs; steps: "
            + ", ".join(f"{result.name[:24]} {result.seconds:.1f}s" for result in night.job.results)
        )
