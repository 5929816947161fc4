"""One-off measurements of the LLM analysis path (not a test; run by hand).

    .venv/bin/python -m benchmarks.llm_analysis [--commits 50] [--latency 1.0]

1. Prompt tokens per commit under the default diff budget, estimated with
   ``diff_budget.estimate_tokens`` (ASCII chars / 4 + one per non-ASCII char). The commits are
   the embedded vLLM sample's real titles, paths and line counts; the sample has no patch
   text, so each file gets a synthetic unified diff of its real size (code-like lines of
   ~70 characters, a hunk per 40 changed lines) — the budget logic only sees sizes and paths.
2. Wall time of analysing N commits against the scripted local server with a fixed
   per-request latency, at concurrency 1 and 8, through the real CLI code path (runner +
   openai SDK + store).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from rich.console import Console

from commit_digest.analysis.diff_budget import estimate_tokens
from commit_digest.analysis.llm_analyzer import LlmAnalyzer
from commit_digest.analysis.llm_client import LlmClient
from commit_digest.analysis.llm_pass import analyse_with_llm
from commit_digest.analysis.selection import Selection
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, Commit, CommitRecord, FileChange, PatchState, PullRequestInfo
from commit_digest.settings import DigestSettings, LlmSettings
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import read_all_records

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fakes.openai_server import FakeOpenAIServer, analysis_responder


def synthetic_patch(change: FileChange) -> str:
    lines: list[str] = []
    changed = [("+", index) for index in range(change.additions)] + [("-", index) for index in range(change.deletions)]
    for start in range(0, max(len(changed), 1), 40):
        chunk = changed[start : start + 40]
        lines.append(f"@@ -{start + 1},{len(chunk) + 3} +{start + 1},{len(chunk) + 3} @@ def forward(self, x):")
        lines.append("     hidden_states = self.norm(hidden_states)")
        lines += [
            f"{sign}        out_{index} = torch.ops.vllm.fused_kernel(hidden_states, self.w{index}, scale)"
            for sign, index in chunk
        ]
        lines.append("     return hidden_states")
    return "\n".join(lines)


def realistic_commits() -> list[Commit]:
    text = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    records = read_all_records(text.splitlines(), source="sample-vllm.jsonl")
    commits = []
    for record in records:
        commit = record.commit
        files = tuple(
            change.model_copy(update={"patch": synthetic_patch(change), "patch_state": PatchState.INCLUDED})
            for change in commit.files
        )
        description = (
            "## Purpose\n" + commit.title + "\n\n## Test Plan\npytest tests/ -k relevant\n\n"
            "## Test Result\nAll passed.\n" + "Details of the change. " * 40
        )
        pr = PullRequestInfo(number=commit.pr_number, description=description) if commit.pr_number else None
        commits.append(commit.model_copy(update={"files": files, "pull_request": pr}))
    return commits


def measure_prompt_tokens(commits: list[Commit]) -> None:
    settings = DigestSettings(llm=LlmSettings(base_url="http://127.0.0.1:9/v1"))
    client = LlmClient(settings.llm, api_key="unused")
    analyzer = LlmAnalyzer(client, settings, load_taxonomy())
    tokens = [analyzer.prompt_for(commit).estimated_tokens for commit in commits]
    system = estimate_tokens(analyzer.system)
    diffs = [sum(change.additions + change.deletions for change in commit.files) for commit in commits]
    clipped = sum(1 for commit in commits if analyzer.prompt_for(commit).diff.omitted)
    print(f"prompt tokens per commit ({len(commits)} commits, diff budget {settings.llm.diff_token_budget}):")
    print(
        f"  median {statistics.median(tokens):.0f}, max {max(tokens)}, min {min(tokens)}, "
        f"mean {statistics.mean(tokens):.0f}; static system part ~{system} tokens"
    )
    print(
        f"  changed lines per commit: median {statistics.median(diffs):.0f}, max {max(diffs)}; "
        f"{clipped} commits had files left out or skipped"
    )
    client.close()


def measure_wall_time(commits: list[Commit], latency: float) -> None:
    with FakeOpenAIServer(analysis_responder(), latency=latency) as server:
        for concurrency in (1, 8):
            with tempfile.TemporaryDirectory() as directory:
                settings = DigestSettings(llm=LlmSettings(base_url=server.base_url, concurrency=concurrency))
                client = LlmClient(settings.llm, api_key="bench-key")
                analyzer = LlmAnalyzer(client, settings, load_taxonomy())
                with AnalysisStore(Path(directory)) as store:
                    for commit in commits:
                        store.merge(CommitRecord(commit=commit))
                    started = time.perf_counter()
                    summary = analyse_with_llm(
                        store,
                        analyzer,
                        settings.llm,
                        Selection(zone=settings.zone),
                        console=Console(file=io.StringIO()),
                    )
                    elapsed = time.perf_counter() - started
                client.close()
                print(
                    f"{summary.selected} commits, latency {latency:g} s, concurrency {concurrency}: "
                    f"{elapsed:.1f} s wall, ok {summary.count(AnalysisStatus.OK)}"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--latency", type=float, default=1.0)
    args = parser.parse_args()
    commits = realistic_commits()
    measure_prompt_tokens(commits)
    measure_wall_time(commits[: args.commits], args.latency)


if __name__ == "__main__":
    main()
