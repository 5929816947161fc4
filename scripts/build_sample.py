"""Builds the embedded demo sample ``src/commit_digest/data/sample-vllm.jsonl``.

Inputs: the legacy daily reports in ``../shared/seeds`` (real vllm-project/vllm commits of
2026-01-07, -08 and -15: time, author, title, and where the report has it the sha and the
full commit message) and ``scripts/sample_files.yml`` (hand-written changed files, and the
synthesized day 2026-01-09). See ``src/commit_digest/data/SAMPLE.md`` for what is real.

The output is deterministic: the same inputs give the same bytes. Records go through the
project's own models and ``write_records``, so the file is valid by construction.

    .venv/bin/python scripts/build_sample.py [--seeds DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

from commit_digest.models import Commit, CommitRecord, FileChange, FileStatus
from commit_digest.store.exchange import write_records

REPOSITORY = "vllm-project/vllm"
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SEEDS = ROOT.parent / "shared" / "seeds"
DEFAULT_OUT = ROOT / "src" / "commit_digest" / "data" / "sample-vllm.jsonl"
FILES_TABLE = ROOT / "scripts" / "sample_files.yml"
PLACEHOLDER_PREFIX = "commit-digest-sample:"
# The days the sample holds, from the seeds, and how many commits each report lists.
SEED_DAYS = {"2026-01-07": 43, "2026-01-08": 54, "2026-01-15": 30}

_TABLE_ROW = re.compile(r"^\| (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \| (.*?) \| (.*) \|$")
_PR = re.compile(r"\(#(\d+)\)\s*$")
_COMMIT_LINK = re.compile(r"https://github\.com/vllm-project/vllm/commit/([0-9a-f]{40})")
_OLD_SECTION = re.compile(r"^### ([0-9a-f]{40})$")
_ANALYSIS_START = "**🎯 变更类型**"


@dataclass(frozen=True)
class SeedCommit:
    when: datetime
    author: str
    title: str
    pr: int
    sha: str | None
    message: str | None  # the full commit message, when the report quotes it


def placeholder_sha(title: str) -> str:
    """A stable stand-in for a commit whose real sha the seeds do not give."""
    return hashlib.sha1((PLACEHOLDER_PREFIX + title).encode("utf-8")).hexdigest()


def pr_of(title: str) -> int:
    found = _PR.search(title)
    if not found:
        raise SystemExit(f"title without a PR number: {title!r}")
    return int(found.group(1))


def parse_report(text: str) -> list[SeedCommit]:
    """The commit table of one legacy report, with each row's sha and message where given."""
    shas: dict[int, str] = {}
    messages: dict[int, str] = {}
    for section in re.split(r"\n(?=### )", text):
        lines = section.splitlines()
        link = _COMMIT_LINK.search(section)
        if not link or not lines:
            continue
        if _OLD_SECTION.match(lines[0]):
            # Older format: sha heading, link, then the commit message up to the analysis.
            message_lines = []
            for line in lines[2:]:
                if line.startswith(_ANALYSIS_START):
                    break
                message_lines.append(line)
            message = "\n".join(message_lines).strip()
            pr = pr_of(message.splitlines()[0])
            messages[pr] = message
        else:
            pr = pr_of(lines[0].removeprefix("### "))
        shas[pr] = link.group(1)
    commits = []
    for line in text.splitlines():
        row = _TABLE_ROW.match(line)
        if not row:
            continue
        when, author, title = row.groups()
        title = title.strip()
        pr = pr_of(title)
        commits.append(
            SeedCommit(
                when=datetime.strptime(when, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC),
                author=author.strip(),
                title=title,
                pr=pr,
                sha=shas.get(pr),
                message=messages.get(pr),
            )
        )
    return commits


def file_changes(entries: list[str], where: str) -> tuple[FileChange, ...]:
    changes = []
    statuses = {
        "A": FileStatus.ADDED,
        "M": FileStatus.MODIFIED,
        "D": FileStatus.REMOVED,
        "R": FileStatus.RENAMED,
    }
    for entry in entries:
        parts = entry.split()
        if parts[0] == "R" and len(parts) == 6 and parts[2] == ">":
            status, previous, _, path, additions, deletions = parts
        elif len(parts) == 4 and parts[0] in statuses:
            status, path, additions, deletions = parts
            previous = None
        else:
            raise SystemExit(f"{FILES_TABLE}: {where}: bad file entry {entry!r}")
        changes.append(
            FileChange(
                path=path,
                status=statuses[status],
                additions=int(additions),
                deletions=int(deletions),
                previous_path=previous,
            )
        )
    return tuple(changes)


def body_of(message: str | None, title: str) -> str:
    """The message without its title line; empty when the seeds do not have the message."""
    if not message:
        return ""
    first, _, rest = message.partition("\n")
    if first.strip() != title.strip():
        raise SystemExit(f"message does not start with its title: {title!r}")
    return rest.strip("\n")


def build_commits(seeds: Path) -> list[Commit]:
    table = yaml.safe_load(FILES_TABLE.read_text(encoding="utf-8"))
    files: dict[int, list[str]] = table["files"]
    commits: list[Commit] = []
    used: set[int] = set()
    for report in sorted(seeds.glob("*.txt")):
        seed_commits = parse_report(report.read_text(encoding="utf-8"))
        day = seed_commits[0].when.date().isoformat()
        if day not in SEED_DAYS:
            continue
        if len(seed_commits) != SEED_DAYS[day]:
            raise SystemExit(f"{report.name}: {len(seed_commits)} commits, expected {SEED_DAYS[day]}")
        for seed in seed_commits:
            if seed.pr not in files:
                raise SystemExit(f"{FILES_TABLE}: no files for #{seed.pr} ({seed.title!r})")
            used.add(seed.pr)
            commits.append(
                Commit(
                    repository=REPOSITORY,
                    sha=seed.sha or placeholder_sha(seed.title),
                    author_name=seed.author,
                    authored_at=seed.when,
                    committed_at=seed.when,
                    title=seed.title,
                    body=body_of(seed.message, seed.title),
                    files=file_changes(files[seed.pr], f"#{seed.pr}"),
                )
            )
    unused = set(files) - used
    if unused:
        raise SystemExit(f"{FILES_TABLE}: files for PRs not in the seeds: {sorted(unused)}")
    synthetic = table["synthetic_day"]
    for time, author, title, entries in synthetic["commits"]:
        when = datetime.fromisoformat(f"{synthetic['date']}T{time}+00:00")
        commits.append(
            Commit(
                repository=REPOSITORY,
                sha=placeholder_sha(title),
                author_name=author,
                authored_at=when,
                committed_at=when,
                title=title,
                files=file_changes(entries, title),
            )
        )
    if len({commit.sha for commit in commits}) != len(commits):
        raise SystemExit("two sample commits share a sha")
    return commits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    commits = build_commits(args.seeds)
    with args.out.open("w", encoding="utf-8", newline="\n") as out:
        count = write_records((CommitRecord(commit=commit) for commit in commits), out)
    per_day: dict[str, int] = {}
    for commit in commits:
        day = commit.committed_at.date().isoformat()
        per_day[day] = per_day.get(day, 0) + 1
    print(f"wrote {count} records to {args.out} ({args.out.stat().st_size} bytes): {per_day}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
