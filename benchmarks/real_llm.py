"""N demo commits through a real local model server (not a test; run by hand).

    .venv/bin/python -m benchmarks.real_llm --n 5 [--family llama.cpp] [--language en]
        [--max-output-tokens 1000] [--temperature 0]

Installs (scripts/ensure-llama-server.sh, quick when done) and starts a real server with Gemma 3
270M (llama-cpp-python's, or with ``--family llama.cpp`` llama.cpp's own ``llama-server``), puts a
counting proxy in front of it, stores the N newest commits of the embedded sample in a fresh store
and runs the real CLI's ``analyze`` on them with default settings (the output mode negotiated).
Prints the negotiated mode, requests, seconds and tokens per commit, and how the replies ended: ok
(valid and above the quality floor), below the floor, invalid, cut off, or another failure. A 270M
model is a test fixture, not a recommendation: the numbers say what the machinery costs and what
the floor keeps out, not what a real deployment would publish.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path

from benchmarks.llama_server import FAMILIES, MODEL_NAME, CountingProxy, ensure_installed, start_server

from commit_digest.models import AnalysisStatus, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.server_profiles import profile_key

SAMPLE = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl")
CONFIG = """site_name: real model benchmark
plugins:
  - commit-digest:
      language: {language}
      llm:
        model: {model}
        concurrency: 1
        timeout_seconds: 900
        max_output_tokens: {max_output_tokens}
        temperature: {temperature}
"""


def _outcome(record: CommitRecord) -> tuple[str, int, int]:
    """How the commit's LLM attempt ended, and its prompt and completion tokens."""
    analysis = record.analysis
    attempt = analysis.provenance if analysis is not None and analysis.provenance.analyzer.startswith("llm:") else None
    attempt = attempt or record.failure
    if attempt is None:
        return "not asked", 0, 0
    usage = attempt.usage
    tokens = (usage.prompt_tokens, usage.completion_tokens) if usage is not None else (0, 0)
    error = attempt.error or ""
    if attempt.status is AnalysisStatus.OK:
        kind = "ok (valid, above the floor)"
    elif "below the quality floor" in error:
        kind = "valid, below the floor"
    elif "cut off" in error:
        kind = "cut off"
    elif "invalid" in error:
        kind = "invalid"
    else:
        kind = f"failed ({attempt.status.value})"
    return kind, *tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=5, help="demo commits to analyse (the newest)")
    parser.add_argument("--language", choices=("zh", "en"), default="en")
    parser.add_argument("--max-output-tokens", type=int, default=1000)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--family", choices=FAMILIES, default=FAMILIES[0])
    parser.add_argument("--temperature", type=float, default=0.2, help="0: greedy, the same reply every run")
    args = parser.parse_args(argv)

    ensure_installed()
    with tempfile.TemporaryDirectory(prefix="real-llm-") as work:
        folder = Path(work)
        records = [CommitRecord.model_validate_json(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
        chosen = sorted(records, key=lambda record: record.commit.committed_at)[-args.n :]
        cache = folder / "cache"
        with AnalysisStore(cache) as store:
            for record in chosen:
                store.merge(CommitRecord(commit=record.commit))
        config = folder / "mkdocs.yml"
        config.write_text(
            CONFIG.format(
                language=args.language,
                model=MODEL_NAME,
                max_output_tokens=args.max_output_tokens,
                temperature=args.temperature,
            ),
            encoding="utf-8",
        )
        server = start_server(folder / "server", n_ctx=args.n_ctx, family=args.family)
        try:
            with CountingProxy(server.port) as proxy:
                env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": proxy.base_url}
                started = time.monotonic()
                done = subprocess.run(
                    [sys.executable, "-m", "commit_digest.cli", "analyze", "-f", str(config), "--cache", str(cache)],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                seconds = time.monotonic() - started
                requests = proxy.chat_requests()
                with AnalysisStore(cache) as store:
                    profile = store.get_meta(profile_key(proxy.base_url, MODEL_NAME))
                    stored = list(store.records())
        finally:
            server.kill()
    outcomes = [_outcome(record) for record in stored]
    kinds = Counter(kind for kind, _, _ in outcomes)
    count = max(len(chosen), 1)
    print(f"server: {args.family} (0.3.36), {MODEL_NAME} (Q4_K_M), n_ctx {args.n_ctx}, 2 threads")
    print(f"temperature: {args.temperature}, max output tokens: {args.max_output_tokens}")
    print(f"commits: {len(chosen)} ({args.language}), analyze exit code {done.returncode}")
    print(f"negotiated: {profile}")
    print(f"requests: {requests} ({requests / count:.2f} per commit)")
    print(f"seconds: {seconds:.1f} ({seconds / count:.1f} per commit, the CLI's start included)")
    print(
        f"tokens per commit: prompt {sum(p for _, p, _ in outcomes) / count:.0f}, "
        f"completion {sum(c for _, _, c in outcomes) / count:.0f}"
    )
    for kind, number in sorted(kinds.items()):
        print(f"  {kind}: {number}")
    for record in stored:  # why each was refused (the store keeps it; no page shows it)
        failure = record.failure
        if failure is not None and failure.error:
            print(f"  {record.commit.short_sha}: {failure.error[:160]}")
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)
    return 0 if done.returncode in (0, 1) else 1


if __name__ == "__main__":
    raise SystemExit(main())
