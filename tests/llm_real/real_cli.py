"""What the real-model tests share: the real CLI run against a real server (or a counting proxy in
front of one), the demo commits they store, and the profiles a run negotiates.

The tests sit in several modules so pytest-xdist's loadfile can spread them over both workers;
each worker starts a session server of a family at most once (tests/llm_real/conftest.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from benchmarks.llama_server import MODEL_NAME, CountingProxy, LlamaServer

from commit_digest.analysis.prompt import PROMPT_VERSION
from commit_digest.models import AnalysisStatus, CommitRecord, FileChange, PatchState
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.server_profiles import profile_key
from tests.llm_real.conftest import started

SAMPLE = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl")
# What test_negotiation finds out by negotiating; the other tests start from it as a later run would.
NEGOTIATED = {
    "family": "llama-cpp-python",
    "form": "json_object",
    "system_in_user": True,
    "token_fields": ["max_completion_tokens", "max_tokens"],
}
NEGOTIATED_LLAMA_CPP = {
    "family": "llama.cpp",
    "form": "json_schema",
    # Its built-in gemma template puts the system message at the head of the user turn: kept.
    "system_in_user": False,
    "token_fields": ["max_completion_tokens", "max_tokens"],
}
PROFILES = {"llama-cpp-python": NEGOTIATED, "llama.cpp": NEGOTIATED_LLAMA_CPP}


def learned(profile: object) -> object:
    """A stored profile without the day its form was learned on (that day is today's)."""
    if not isinstance(profile, dict):
        return profile
    assert profile.get("learned_on") == datetime.now(UTC).date().isoformat()
    return {key: value for key, value in profile.items() if key != "learned_on"}


SERVER_FIXTURES = {"llama-cpp-python": "llama_server", "llama.cpp": "llama_cpp_server"}
CONFIG = """site_name: real model
plugins:
  - commit-digest:
      languages: {languages}
      llm:
        model: {model}
        concurrency: 1
        timeout_seconds: 600
        max_retries: {retries}
        retry_backoff_seconds: 0
        max_output_tokens: {max_output_tokens}
"""
# The output limit of the real-model runs: enough to see each path, few enough to run in minutes.
TINY = 16
# Room for a whole reply from the 270M model (most of its replies close within it).
WHOLE = 1000
_TOKENS = re.compile(r"tokens: prompt (\d+) \(cached \d+\), completion (\d+)")


@dataclass(frozen=True)
class Run:
    code: int
    output: str
    seconds: float
    requests: list[int]  # the status of each chat request the server answered during the run

    @property
    def tokens(self) -> tuple[int, int]:
        found = _TOKENS.search(self.output)
        return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def write_config(folder: Path, *, languages: str = "[en]", max_output_tokens: int = 1000, retries: int = 4) -> Path:
    path = folder / "mkdocs.yml"
    path.write_text(
        CONFIG.format(languages=languages, model=MODEL_NAME, max_output_tokens=max_output_tokens, retries=retries),
        encoding="utf-8",
    )
    return path


def run_cli(server: LlamaServer | CountingProxy, config: Path, cache: Path, *args: str) -> Run:
    """Runs the CLI against ``server`` (or a proxy in front of one), counting its chat requests."""
    # OPENAI_API_KEY=x: what a local server is given; the redaction must leave error texts readable.
    env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": server.base_url}
    before = len(server.chat_statuses())
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "commit_digest.cli", args[0], "-f", str(config), "--cache", str(cache), *args[1:]],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    return Run(done.returncode, done.stdout + done.stderr, time.monotonic() - started, server.chat_statuses()[before:])


def store_sample(cache: Path, count: int, *, patch_lines: int = 0) -> list[CommitRecord]:
    """The ``count`` newest demo commits, stored without analyses (with a synthetic patch of
    ``patch_lines`` lines on the first, for a prompt over a small context window)."""
    records = [CommitRecord.model_validate_json(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    chosen = sorted(records, key=lambda record: record.commit.committed_at)[-count:]
    with AnalysisStore(cache) as store:
        for index, record in enumerate(chosen):
            commit = record.commit
            if patch_lines and index == 0:
                body = "\n".join(
                    f"+    scale_{n} = tune_block(size={n}, warps=4)  # kernel tuning" for n in range(patch_lines)
                )
                patch = f"@@ -1,2 +1,{patch_lines + 2} @@\n def tune():\n     pass\n{body}"
                change = FileChange(
                    path="vllm/kernels/tuning.py", additions=patch_lines, patch=patch, patch_state=PatchState.INCLUDED
                )
                commit = commit.model_copy(update={"files": (change,)})
            store.merge(CommitRecord(commit=commit))
    return chosen


def remember_profile(cache: Path, server: LlamaServer | CountingProxy, family: str = "llama-cpp-python") -> None:
    with AnalysisStore(cache) as store:
        # As an earlier run stored it: learned today (a form learned a week ago is asked upward again).
        profile = {**PROFILES[family], "learned_on": datetime.now(UTC).date().isoformat()}
        store.set_meta(profile_key(server.base_url, MODEL_NAME), profile)


def seed_ok(cache: Path, record: CommitRecord) -> str:
    """Stores an ok analysis for ``record`` as an earlier run of this model would have (the offline
    rules' wording: the 270M model's own replies do not pass the floor); returns its JSON."""
    with AnalysisStore(cache) as store:
        stored = store.get(record.commit.repository, record.commit.sha)
    assert stored is not None and stored.analysis is not None
    provenance = stored.analysis.provenance.model_copy(
        update={"analyzer": f"llm:{MODEL_NAME}", "prompt_version": PROMPT_VERSION}
    )
    seeded = stored.model_copy(update={"analysis": stored.analysis.model_copy(update={"provenance": provenance})})
    with AnalysisStore(cache) as store:
        store.put(seeded)
    assert seeded.analysis is not None
    return seeded.analysis.model_dump_json()


def stored_records(cache: Path) -> list[CommitRecord]:
    with AnalysisStore(cache) as store:
        return list(store.records())


def llm_attempts(records: list[CommitRecord]) -> list[tuple[CommitRecord, AnalysisStatus, str | None]]:
    """Each record's LLM attempt: the stored analysis when it is the LLM's, else the failure beside
    the offline analysis."""
    attempts = []
    for record in records:
        analysis = record.analysis
        if analysis is not None and analysis.provenance.analyzer == f"llm:{MODEL_NAME}":
            attempts.append((record, analysis.provenance.status, analysis.provenance.error))
        elif record.failure is not None:
            attempts.append((record, record.failure.status, record.failure.error))
    return attempts


def report(name: str, run: Run, commits: int, ok: int) -> None:
    prompt, completion = run.tokens
    line = {
        "test": name,
        "commits": commits,
        "ok": ok,
        "requests": len(run.requests),
        "statuses": run.requests,
        "seconds": round(run.seconds, 1),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }
    print(json.dumps(line))  # shown with -s and in the report of a failing test


def analyze_in_a_small_window(folder: Path, family: str) -> tuple[Run, str | None]:
    """One commit with a long patch through a server started with a 4,096-token window: the run
    and the commit's failure text (None when ok)."""
    server = started(folder / "server", family=family, n_ctx=4096)
    try:
        cache, config = folder / "cache", write_config(folder, max_output_tokens=TINY)
        store_sample(cache, 1, patch_lines=160)
        remember_profile(cache, server, family)
        run = run_cli(server, config, cache, "analyze", "--limit", "1")
    finally:
        server.kill()
    ((_record, status, error),) = llm_attempts(stored_records(cache))
    report(f"{family} context", run, 1, int(status is AnalysisStatus.OK))
    return run, error
