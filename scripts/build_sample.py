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
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import yaml

from commit_digest.legacy.importer import import_files
from commit_digest.meaning.releases import Release
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisStatus, Commit, CommitRecord, FileChange, FileStatus, PatchState, Provenance
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import write_records
from commit_digest.store.sample_note import SampleNote, note_text

REPOSITORY = "vllm-project/vllm"
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SEEDS = ROOT.parent / "shared" / "seeds"
DEFAULT_OUT = ROOT / "src" / "commit_digest" / "data" / "sample-vllm.jsonl"
NIGHT = time(2, 0)  # when the sample's failed analysis was "asked"
NOTE_SUFFIX = ".note.json"  # beside the records: sample-vllm.note.json
RELEASES_SUFFIX = ".releases.jsonl"  # one Release per line
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


def with_patches(changes: tuple[FileChange, ...], patches: dict[str, list[str]], title: str) -> tuple[FileChange, ...]:
    """The commit's files with the hand-written diffs of ``patches`` (a file it lacks is added)."""
    by_path = {change.path: change for change in changes}
    for path, (entry, patch) in patches.items():
        (change,) = file_changes([entry], title)
        if change.path != path:
            raise SystemExit(f"{FILES_TABLE}: patches of {title!r}: {path} names {change.path}")
        by_path[path] = change.model_copy(update={"patch": patch, "patch_state": PatchState.INCLUDED})
    return tuple(by_path.values())


def build_commits(seeds: Path) -> tuple[list[Commit], set[str]]:
    """The sample's commits, and the shas of those made up whole."""
    table = yaml.safe_load(FILES_TABLE.read_text(encoding="utf-8"))
    files: dict[int, list[str]] = table["files"]
    patches: dict[str, dict[str, list[str]]] = table["patches"]
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
    invented: set[str] = set()
    for clock, author, title, entries in synthetic["commits"]:
        when = datetime.fromisoformat(f"{synthetic['date']}T{clock}+00:00")
        invented.add(placeholder_sha(title))
        commits.append(
            Commit(
                repository=REPOSITORY,
                sha=placeholder_sha(title),
                author_name=author,
                authored_at=when,
                committed_at=when,
                title=title,
                files=with_patches(file_changes(entries, title), patches.pop(title, {}), title),
            )
        )
    if patches:
        raise SystemExit(f"{FILES_TABLE}: patches for commits not in the synthesized day: {sorted(patches)}")
    if len({commit.sha for commit in commits}) != len(commits):
        raise SystemExit("two sample commits share a sha")
    return commits, invented


def with_legacy_analyses(commits: list[Commit], seeds: Path, failed_title: str) -> list[CommitRecord]:
    """The commits with the analyses the legacy reports hold (written by the legacy tool's model,
    imported as ``import-legacy`` does), and one invented commit marked as a failed analysis."""
    with tempfile.TemporaryDirectory(prefix="sample-") as folder, AnalysisStore(folder) as store:
        store.merge_all(CommitRecord(commit=commit) for commit in commits)
        reports = sorted(path for path in seeds.glob("*.txt"))
        import_files(
            reports,
            store,
            requested_repository=REPOSITORY,
            default_repository=REPOSITORY,
            zone=UTC,
            taxonomy=load_taxonomy(),
        )
        records = {record.commit.sha: record for record in store.records(REPOSITORY)}
    if len(records) != len(commits):
        raise SystemExit(f"the legacy import changed the commits: {len(records)} records for {len(commits)} commits")
    failed = records[placeholder_sha(failed_title)]
    records[failed.commit.sha] = failed.model_copy(
        update={
            "failure": Provenance(
                analyzer="llm:sample-model",
                # The night after the commit, as a nightly run would have asked: later than the
                # offline analysis beside it (which carries the commit's time), so it stays shown.
                created_at=datetime.combine(failed.commit.committed_at.date() + timedelta(days=1), NIGHT, tzinfo=UTC),
                status=AnalysisStatus.FAILED,
                error="the demo's example of a failed analysis: no model was asked",
                language="zh",
            )
        }
    )
    return [records[commit.sha] for commit in commits]


def sample_release(records: list[CommitRecord], spec: dict[str, str]) -> Release:
    """The invented release of the synthesized day: its tag on the day's last commit, releasing
    every commit of that day (the real days' commits are left in no release)."""
    day = [record.commit for record in records if record.commit.committed_at.date().isoformat() == spec["day"]]
    last = max(day, key=lambda commit: commit.committed_at)
    return Release(
        repository=REPOSITORY,
        tag=spec["tag"],
        sha=last.sha,
        tagged_at=last.committed_at + timedelta(minutes=5),
        commits=tuple(commit.sha for commit in day),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    commits, invented = build_commits(args.seeds)
    table = yaml.safe_load(FILES_TABLE.read_text(encoding="utf-8"))
    records = with_legacy_analyses(commits, args.seeds, table["failed_analysis"])
    with args.out.open("w", encoding="utf-8", newline="\n") as out:
        count = write_records(records, out)
    days = sorted(commit.committed_at.date() for commit in commits)
    release = sample_release(records, table["release"])
    releases_path = args.out.with_name(args.out.name.removesuffix(".jsonl") + RELEASES_SUFFIX)
    releases_path.write_text(release.model_dump_json() + "\n", encoding="utf-8")
    note = SampleNote(
        repository=REPOSITORY,
        first_day=days[0],
        last_day=days[-1],
        commits=len(commits),
        invented=frozenset(invented),
        invented_tags=frozenset({release.tag}),
        placeholder_shas=frozenset(c.sha for c in commits if c.sha == placeholder_sha(c.title)) - invented,
    )
    note_path = args.out.with_name(args.out.name.removesuffix(".jsonl") + NOTE_SUFFIX)
    note_path.write_text(note_text(note) + "\n", encoding="utf-8")
    per_day: dict[str, int] = {}
    for commit in commits:
        day = commit.committed_at.date().isoformat()
        per_day[day] = per_day.get(day, 0) + 1
    print(f"wrote {count} records to {args.out} ({args.out.stat().st_size} bytes): {per_day}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
