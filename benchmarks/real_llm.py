"""N demo commits through a real local model server (not a test; run by hand).

    .venv/bin/python -m benchmarks.real_llm --n 5 [--family llama.cpp] [--language en]
        [--max-output-tokens 1000] [--temperature 0] [--model smollm2] [--settings minimal]
        [--server-log PATH]

Installs (scripts/ensure-llama-server.sh, quick when done) and starts a real server with Gemma 3
270M (llama-cpp-python's, or with ``--family llama.cpp`` llama.cpp's own ``llama-server``), puts a
counting proxy in front of it, stores the N newest commits of the embedded sample in a fresh store
and runs the real CLI's ``analyze`` on them with default settings (the output mode negotiated).
Prints the negotiated mode, requests, seconds and tokens per commit, and how the replies ended: ok
(valid and above the quality floor), below the floor, invalid, cut off, or another failure. A 270M
model is a test fixture, not a recommendation: the numbers say what the machinery costs and what
the floor keeps out, not what a real deployment would publish.

``--model smollm2`` serves SmolLM2-135M-Instruct (Q4_1, an instruction-tuned model with its own
ChatML template, fetched once by benchmarks/small_model.py) with ``llama-server --jinja``
(``--family llama.cpp`` only). ``--settings minimal`` writes an ``llm`` block with the model alone
(the base URL comes from OPENAI_BASE_URL): the product's own defaults for concurrency, timeout,
output limit and temperature, as a user who sets only the model and base URL runs it;
``--settings bench`` (the default) fixes them as CONFIG does. Per commit it prints the chat requests
the proxy saw (matched to the commit by its sha in the prompt), the tokens the server counted in its
replies, the seconds from the commit's first request to its last byte, each request's status,
seconds and ending, and the outcome. The CLI runs in a subprocess with this environment: set
PYTHONPATH to measure another tree's code (the first line printed says which package ran).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from importlib import resources
from pathlib import Path

from benchmarks.llama_server import (
    FAMILIES,
    SERVED_MODELS,
    VERSION,
    CountingProxy,
    Exchange,
    ensure_installed,
    installed,
    start_server,
)
from benchmarks.small_model import ensure_smollm2

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
# Only the model: the product's defaults for everything else (the base URL is OPENAI_BASE_URL).
MINIMAL_CONFIG = """site_name: real model benchmark
plugins:
  - commit-digest:
      language: {language}
      llm:
        model: {model}
"""
SETTINGS = {"bench": CONFIG, "minimal": MINIMAL_CONFIG}


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


def _by_commit(chosen: list[CommitRecord], exchanges: list[Exchange]) -> dict[str, list[Exchange]]:
    """Each chat request under the commit whose sha its prompt carries ("" for none)."""
    found: dict[str, list[Exchange]] = {record.commit.sha: [] for record in chosen}
    for exchange in exchanges:
        sha = next((sha for sha in found if sha.encode() in exchange.request), "")
        found.setdefault(sha, []).append(exchange)
    return found


def _request_line(number: int, exchange: Exchange) -> str:
    usage = exchange.usage()
    tokens = f", {usage[0]} + {usage[1]} tokens" if usage is not None else ""
    if usage is None and exchange.streamed:  # no usage came: an event is about one token
        tokens = f", {exchange.events} events relayed before it ended"
    status = exchange.status if exchange.status is not None else "no status"
    seconds = f"{exchange.seconds:.1f} s" if exchange.seconds is not None else "still open"
    stream = ", streamed" if exchange.streamed else ""
    return f"#{number} {status} {seconds} {exchange.ended}{stream}{tokens}"


_TASK = re.compile(r"task (\d+) \|")
_EVAL = re.compile(r"task (\d+) \| +(prompt eval|eval) time = .*/ +(\d+) tokens")
_PROGRESS = re.compile(r"task (\d+) \| n_gen = +(\d+)")
_CANCEL = re.compile(r"cancel task, id_task = (\d+)")


def _server_tasks(log: str) -> str:
    """llama-server's own account of its tasks (its log): how many ran to the end and the tokens
    they evaluated and generated; how many were cancelled (their client went) while running, with
    the tokens each had generated by its last progress line (every 3 s: no reply reports them),
    and how many were cancelled before they ran."""
    launched: list[str] = []
    evaluated = generated = 0
    cancelled: set[str] = set()
    progress: dict[str, int] = {}
    finished: set[str] = set()
    for line in log.splitlines():
        if "launch_slot_" in line and (task := _TASK.search(line)):
            launched.append(task.group(1))
        elif match := _EVAL.search(line):
            finished.add(match.group(1))
            if match.group(2) == "prompt eval":
                evaluated += int(match.group(3))
            else:
                generated += int(match.group(3))
        elif match := _PROGRESS.search(line):
            progress[match.group(1)] = int(match.group(2))
        elif match := _CANCEL.search(line):
            cancelled.add(match.group(1))
    stopped = [task for task in launched if task not in finished]
    return (
        f"server log: {len(launched)} tasks run, {len(finished)} to the end (prompt tokens evaluated, "
        f"uncached: {evaluated}; generated: {generated}); {len(stopped)} stopped mid-task, their client gone "
        f"(generated by the last progress line: {[progress.get(task, 0) for task in stopped]}); "
        f"{len(cancelled - set(launched))} cancelled before they ran"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=5, help="demo commits to analyse (the newest)")
    parser.add_argument("--language", choices=("zh", "en"), default="en")
    parser.add_argument("--max-output-tokens", type=int, default=1000)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--family", choices=FAMILIES, default=FAMILIES[0])
    parser.add_argument("--temperature", type=float, default=0.2, help="0: greedy, the same reply every run")
    parser.add_argument("--model", choices=tuple(SERVED_MODELS), default="gemma")
    parser.add_argument(
        "--settings",
        choices=tuple(SETTINGS),
        default="bench",
        help="minimal: llm.model alone, the product's defaults (--max-output-tokens, --temperature unused)",
    )
    parser.add_argument("--server-log", type=Path, help="keep a copy of the server's log here")
    args = parser.parse_args(argv)
    served = SERVED_MODELS[args.model]
    if args.model != "gemma" and args.family != "llama.cpp":
        parser.error(f"--model {args.model} is served by --family llama.cpp only")

    if args.model == "smollm2":
        ensure_smollm2()
    if args.model == "gemma" or not installed(args.family, args.model):
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
            SETTINGS[args.settings].format(
                language=args.language,
                model=served.name,
                max_output_tokens=args.max_output_tokens,
                temperature=args.temperature,
            ),
            encoding="utf-8",
        )
        server = start_server(folder / "server", n_ctx=args.n_ctx, family=args.family, model=args.model)
        try:
            with CountingProxy(server.port) as proxy:
                env = {**os.environ, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": proxy.base_url}
                product = subprocess.run(
                    [sys.executable, "-c", "import commit_digest; print(commit_digest.__file__)"],
                    capture_output=True,
                    text=True,
                    env=env,
                ).stdout.strip()
                started = time.monotonic()
                done = subprocess.run(
                    [sys.executable, "-m", "commit_digest.cli", "analyze", "-f", str(config), "--cache", str(cache)],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                seconds = time.monotonic() - started
                # The server's log of what it cancelled, written once the proxy closes upstream.
                settled = time.monotonic() + 5
                while any(e.ended == "open" for e in proxy.chat_exchanges()) and time.monotonic() < settled:
                    time.sleep(0.1)
                time.sleep(0.5)
                requests = proxy.chat_requests()
                exchanges = proxy.chat_exchanges()
                with AnalysisStore(cache) as store:
                    profile = store.get_meta(profile_key(proxy.base_url, served.name))
                    stored = list(store.records())
        finally:
            server.kill()
        log = server.log.read_text(encoding="utf-8", errors="replace")
        if args.server_log is not None:
            shutil.copyfile(server.log, args.server_log)
    outcomes = [_outcome(record) for record in stored]
    kinds = Counter(kind for kind, _, _ in outcomes)
    count = max(len(chosen), 1)
    print(f"product: {product}")
    print(f"server: {args.family} ({VERSION}), {served.name} ({served.quantization}), n_ctx {args.n_ctx}, 2 threads")
    if args.settings == "minimal":
        print("settings: minimal (llm.model alone: the product's defaults for everything else)")
    else:
        print(f"settings: bench; temperature: {args.temperature}, max output tokens: {args.max_output_tokens}")
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
    _per_commit(chosen, stored, exchanges, seconds)
    if args.family == "llama.cpp":
        print(_server_tasks(log))
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)
    return 0 if done.returncode in (0, 1) else 1


def _per_commit(chosen: list[CommitRecord], stored: list[CommitRecord], exchanges: list[Exchange], wall: float) -> None:
    """The table per commit: requests, the tokens the server counted in its replies, seconds from
    the commit's first request to its last byte, the outcome; each request's status, seconds and
    ending beneath; totals and averages per commit last."""
    outcome = {record.commit.sha: _outcome(record)[0] for record in stored}
    grouped = _by_commit(chosen, exchanges)
    print(
        "per commit (chat requests at the proxy; prompt and completion tokens as the server counted them "
        "in its replies, none for a request cut short; seconds from its first request to its last byte):"
    )
    print(f"  {'commit':<10} {'requests':>8} {'prompt':>8} {'completion':>10} {'seconds':>8}  outcome")
    totals = [0, 0, 0, 0.0]
    for sha, mine in grouped.items():
        if not mine and not sha:
            continue
        usages = [usage for exchange in mine if (usage := exchange.usage()) is not None]
        prompt, completion = sum(p for p, _ in usages), sum(c for _, c in usages)
        ends = [exchange.started + exchange.seconds for exchange in mine if exchange.seconds is not None]
        span = max(ends) - min(exchange.started for exchange in mine) if ends else 0.0
        label = sha[:10] if sha else "(no commit)"
        print(
            f"  {label:<10} {len(mine):>8} {prompt:>8} {completion:>10} {span:>8.1f}  {outcome.get(sha, 'not stored')}"
        )
        for number, exchange in enumerate(mine, 1):
            print(f"      {_request_line(number, exchange)}")
        for index, value in enumerate((len(mine), prompt, completion, span)):
            totals[index] += value
    count = max(len(chosen), 1)
    print(
        f"  {'total':<10} {totals[0]:>8} {totals[1]:>8} {totals[2]:>10} {totals[3]:>8.1f}  "
        f"(wall clock of the whole run: {wall:.1f} s)"
    )
    print(
        f"  {'per commit':<10} {totals[0] / count:>8.2f} {totals[1] / count:>8.0f} {totals[2] / count:>10.0f} "
        f"{totals[3] / count:>8.1f}  (wall clock per commit: {wall / count:.1f} s)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
