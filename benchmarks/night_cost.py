"""What a night of vLLM costs, measured with ``commit-digest stats`` at a named model's prices.

    .venv/bin/python -m benchmarks.night_cost [--seed ../shared/seeds/000_f690ba4805e39c59.txt]

One real day of vLLM (2026-01-08: 54 commits, the embedded sample's real titles, shas, authors
and paths) goes through the real ``commit-digest analyze`` (prompt building, diff budget, the
openai SDK, the store) against a scripted OpenAI-compatible server on 127.0.0.1 that bills as
the OpenAI API would for gpt-4o-mini:

- prompt tokens: the request's messages counted with gpt-4o-mini's own tokenizer (o200k_base,
  from the ``bpe-openai`` package, which ships the vocabulary), plus the chat format's 3 tokens
  a message and 3 for the reply;
- completion tokens: the length, in the same tokenizer, of the analysis a real LLM wrote of that
  very commit (the legacy tool's report of 2026-01-08, one section per commit), the closest thing
  to a real reply this machine has; the reply itself is a valid analysis of the scripted server.

Then ``commit-digest stats`` prices the stored usage with ``llm.prices`` (gpt-4o-mini's list
prices, USD per million tokens). What it cannot know: the sample has no patch text, so each file
gets a synthetic diff of its line counts (``benchmarks.llm_analysis.synthetic_patch``); a real
night's diffs are larger or smaller, and the prompt never takes more than ``diff_token_budget``
(12,000) of them. The upper bound this prints is every commit at that budget.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.llm_analysis import realistic_commits
from tests.fakes.openai_server import FakeOpenAIServer, analysis_content, completion

from commit_digest.cli import main as cli
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore

DAY = "2026-01-08"
MODEL = "gpt-4o-mini"
# USD per million tokens, gpt-4o-mini's list prices (input, output; cached input half price).
PRICES = {MODEL: {"prompt": 0.15, "completion": 0.6, "cached_prompt": 0.075}}
SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_f690ba4805e39c59.txt"
_SECTION = re.compile(r"^### (?P<title>.+\(#(?P<pr>\d+)\))\s*\n\*\*SHA\*\*", re.MULTILINE)


def legacy_sections(report: str) -> dict[int, str]:
    """Each commit's section of a legacy report (its analysis as the old LLM wrote it), by PR number."""
    starts = list(_SECTION.finditer(report))
    sections = {}
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(report)
        sections[int(match["pr"])] = report[match.start() : end]
    return sections


def main() -> None:
    import bpe_openai  # a benchmark-only dependency: gpt-4o's tokenizer with its vocabulary, offline

    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=Path, default=SEED, help="the legacy report of 2026-01-08")
    args = parser.parse_args()
    encoding = bpe_openai.get_encoding(bpe_openai.encoding_name_for_model(MODEL))
    sections = legacy_sections(args.seed.read_text(encoding="utf-8"))
    commits = [commit for commit in realistic_commits() if str(commit.committed_at.date()) == DAY]
    replies: list[dict[str, int]] = []

    def respond(request: dict[str, Any]) -> Any:
        messages = request.get("messages", [])
        prompt = sum(len(encoding.encode(str(message.get("content") or ""))) + 3 for message in messages) + 3
        user = "".join(str(message.get("content")) for message in messages if message.get("role") == "user")
        pr = re.search(r"\(#(\d+)\)", user)
        section = sections.get(int(pr.group(1))) if pr else None
        content = analysis_content()
        written = len(encoding.encode(section if section is not None else content))
        replies.append({"prompt": prompt, "completion": written, "legacy": int(section is not None)})
        return completion(content, usage={"prompt_tokens": prompt, "completion_tokens": written})

    logging.disable(logging.INFO)  # the HTTP client's line per request
    with tempfile.TemporaryDirectory() as folder, FakeOpenAIServer(respond) as server:
        root = Path(folder)
        with AnalysisStore(root / "cache") as store:
            for commit in commits:
                store.merge(CommitRecord(commit=commit))
        options = {
            "repository": "vllm-project/vllm",
            "cache_dir": "cache",
            "language": "zh",
            "llm": {"model": MODEL, "base_url": server.base_url, "prices": PRICES},
        }
        (root / "mkdocs.yml").write_text(
            yaml.safe_dump({"site_name": "cost", "plugins": [{"commit-digest": options}]}), encoding="utf-8"
        )
        with _environment(OPENAI_API_KEY="sk-benchmark"):
            started = time.perf_counter()
            analysed = _quiet(lambda: cli(["-f", str(root / "mkdocs.yml"), "analyze"]))
            seconds = time.perf_counter() - started
            stats = StringIO()
            with redirect_stdout(stats):
                cli(["-f", str(root / "mkdocs.yml"), "stats"])
    prompt = [reply["prompt"] for reply in replies]
    written = [reply["completion"] for reply in replies]
    print(f"{DAY}: {len(commits)} commits, {len(replies)} requests (analyze exit {analysed}, {seconds:.1f} s)")
    print(
        f"prompt tokens per commit (o200k_base): median {sorted(prompt)[len(prompt) // 2]}, min {min(prompt)}, "
        f"max {max(prompt)}, total {sum(prompt)}"
    )
    print(
        f"completion tokens per commit (the real 2026-01-08 analyses, {sum(r['legacy'] for r in replies)} of "
        f"{len(replies)} matched): median {sorted(written)[len(written) // 2]}, total {sum(written)}"
    )
    price = PRICES[MODEL]
    bound = len(commits) * ((12_000 + max(prompt)) * price["prompt"] + 4_000 * price["completion"]) / 1e6
    print(
        f"upper bound, every prompt at the 12,000-token diff budget and every reply at max_output_tokens (4,000): "
        f"{bound:.3f} USD"
    )
    print("commit-digest stats:")
    print(stats.getvalue().rstrip())
    print(json.dumps({"prompt": sum(prompt), "completion": sum(written), "requests": len(replies)}))


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _quiet(run: Any) -> int:
    with redirect_stdout(StringIO()):
        return int(run())


if __name__ == "__main__":
    main()
