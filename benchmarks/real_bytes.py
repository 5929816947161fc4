"""Site bytes per commit of real vLLM commits, where no real history can be cloned (not a test;
run by hand).

    .venv/bin/python -m benchmarks.real_bytes [--n 3800] [--keep DIR] [--languages zh,en]

The embedded sample's real vllm-project/vllm commits (src/commit_digest/data/sample-vllm.jsonl:
their titles, authors, changed paths and line counts) are analysed offline, as ``commit-digest
demo`` does, and repeated with new SHAs, each copy 14 days before the last, until the archive
holds N commits. The site is built from them with ``commit-digest build --strict`` and its bytes
are printed as benchmarks.scale prints them (benchmarks/site_bytes.py): per language, per commit,
by folder. What benchmarks.scale's synthetic archive cannot say, with its LLM-sized analyses and
its invented titles and paths: the bytes of a real history with offline analyses (a hardware
plugin's repository of 3,800 commits, say) on a machine that cannot fetch one.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import timedelta
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

from benchmarks.site_bytes import configured_languages, measure_site, report_site
from benchmarks.steps import PROJECT, run_step, write_project

from commit_digest.analysis.offline_pass import analyse_offline
from commit_digest.analysis.selection import Selection
from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import read_all_records

SAMPLE = "data/sample-vllm.jsonl"
COPY_SPACING = timedelta(days=14)  # the sample spans nine days: copies never share a day


def analysed_sample(work: Path, language: str) -> list[CommitRecord]:
    """The sample's records with their offline analyses, as the demo stores them."""
    text = resources.files("commit_digest").joinpath(SAMPLE).read_text(encoding="utf-8")
    records = read_all_records(text.splitlines(), source=SAMPLE)
    with AnalysisStore(work / "sample") as store:
        store.merge_all(records)
        analyse_offline(store, OfflineAnalyzer(load_taxonomy(), language), Selection(zone=ZoneInfo("UTC")))
        return list(store.records())


def repeated(records: Sequence[CommitRecord], n: int) -> Iterator[CommitRecord]:
    """``n`` records: ``records`` again and again, each copy ``COPY_SPACING`` earlier, new SHAs."""
    for index in range(n):
        copy, record = divmod(index, len(records))
        original = records[record]
        shift = COPY_SPACING * copy
        commit = original.commit.model_copy(
            update={
                "sha": hashlib.sha1(f"{copy}:{original.commit.sha}".encode()).hexdigest(),
                "committed_at": original.commit.committed_at - shift,
                "authored_at": original.commit.authored_at - shift,
            }
        )
        analysis = original.analysis
        if analysis is not None:
            provenance = analysis.provenance.model_copy(update={"created_at": analysis.provenance.created_at - shift})
            analysis = analysis.model_copy(update={"provenance": provenance})
        yield original.model_copy(update={"commit": commit, "analysis": analysis})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=3800, help="commits in the archive (default: 3800)")
    parser.add_argument("--keep", type=Path, help="build here and keep the store and the site")
    parser.add_argument("--languages", default="", help="comma-separated, e.g. zh,en (default: mkdocs.yml's)")
    args = parser.parse_args(argv)
    languages = tuple(code for code in args.languages.split(",") if code)
    work = args.keep or Path(tempfile.mkdtemp(prefix="real-bytes-"))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        config = write_project(work / "ours", languages)
        built = configured_languages(config)
        sample = analysed_sample(work, built[0])
        with AnalysisStore(work / "cache") as store:
            for record in repeated(sample, args.n):
                store.put(record)
        site = work / "ours" / "site"
        command = [sys.executable, "-m", "commit_digest.cli", "build", "-f", str(config), "--strict"]
        step = run_step("build", [*command, "--cache", str(work / "cache"), "--site-dir", str(site)], PROJECT)
        print(f"{args.n} real vLLM commits ({len(sample)} repeated), offline analyses: built in {step.seconds:.1f} s")
        print("\n".join(report_site(measure_site(site, built, args.n))))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
