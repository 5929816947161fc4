"""Each build's view of every commit (``SiteCommit`` without the record), kept beside its
manifest so the next build parses only the records that changed.

Parsing and labelling every record is what a build after one new day would otherwise spend most
of its time on, however few commits arrived. The summaries are kept by the digest of each
record's stored text, with the build's shared digest (code, configuration, taxonomy): a record
whose text changed is read again, and a change of code or configuration reads everything.
The file sits in the published site, so it is JSON (a header line, the table of the labels the
rows name, then one line per record), each row validated when read; anything wrong with it costs
only time (those records are read again), never a page.
"""

from __future__ import annotations

import gzip
import logging
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import PositiveInt, StringConstraints, TypeAdapter, ValidationError

from commit_digest import caps
from commit_digest.fields import LabelId, RepositoryName, Sha
from commit_digest.meaning.impact.extract import OperatorChange, OperatorImpact
from commit_digest.meaning.relations.links import CommitLinks
from commit_digest.models import AnalysisStatus, ChangeType, Label, LabelSource, restored_label
from commit_digest.site import paths
from commit_digest.site.model.commit import CommitSummary, SiteCommit
from commit_digest.site.model.record_source import RecordSource
from commit_digest.site.model.wording import Wording

logger = logging.getLogger("mkdocs.plugins.commit_digest.summaries")

FORMAT = 4


_LabelRow = tuple[LabelId, LabelSource, Annotated[str, StringConstraints(max_length=caps.STORED.short)]]
# One commit, as plain values: pydantic checks rows of these far faster than the same commits as
# nested models and dataclasses.
# What pages put in links and attributes is checked as the record's own fields are.
_Row = tuple[
    RepositoryName,
    Sha,
    str,  # title
    str,  # author name
    datetime,  # committed at
    PositiveInt | None,  # pull request number
    bool,  # analysed
    Literal["high", "medium", "low", "unanalysed"],  # group: its importance, or UNANALYSED
    ChangeType | None,
    AnalysisStatus,
    datetime,  # local time
    tuple[int, ...],  # platforms: their places in the file's table of labels
    tuple[int, ...],  # subsystems
    str,  # fingerprint
    CommitLinks.Parts,
    tuple[OperatorChange, ...] | None,  # the operator impact's changes; None: not found yet
    bool,  # the operator impact is partial
]


@dataclass(frozen=True)
class _Header:
    format: int
    shared: str


_HEADER = TypeAdapter(_Header)
# Every label the rows name, once: most commits share their labels and their reasons.
_LABELS: TypeAdapter[list[_LabelRow]] = TypeAdapter(list[_LabelRow])
_ROW: TypeAdapter[_Row] = TypeAdapter(_Row)
PATH = Path(paths.STATE_DIR) / "summaries.jsonl.gz"


def _row(commit: SiteCommit, places: dict[tuple[str, LabelSource, str], int]) -> _Row:
    """The row of a commit; ``places`` numbers the labels (and learns the new ones)."""
    summary, impact = commit.summary, commit.impact
    return (
        summary.repository,
        summary.sha,
        summary.title,
        summary.author_name,
        summary.committed_at,
        summary.pr_number,
        summary.analysed,
        summary.group,
        ChangeType(summary.change_type) if summary.change_type else None,
        summary.status,
        commit.local_time,
        tuple(places.setdefault((label.id, label.source, label.reason), len(places)) for label in commit.platforms),
        tuple(places.setdefault((label.id, label.source, label.reason), len(places)) for label in commit.subsystems),
        commit.fingerprint,
        commit.links.parts(),
        None if impact is None else impact.changes,
        impact is not None and impact.partial,
    )


def _site_commit(row: _Row, labels: list[Label], wording: Wording | None, source: RecordSource | None) -> SiteCommit:
    """The commit of a checked row; IndexError when it names a label the table does not have."""
    change_type = row[8]
    summary = CommitSummary(*row[:8], change_type.value if change_type else None, row[9])  # type: ignore[misc]
    local_time, platforms, subsystems, fingerprint, links, changes, partial = row[10:]
    return SiteCommit(
        summary=summary,
        local_time=local_time,
        platforms=tuple(labels[place] for place in platforms),
        subsystems=tuple(labels[place] for place in subsystems),
        fingerprint=fingerprint,
        wording=wording,
        source=source,
        links=CommitLinks.of_parts(links),
        impact=None if changes is None else _impact(changes, partial),
    )


@lru_cache(maxsize=4)
def _no_impact(partial: bool) -> OperatorImpact:
    return OperatorImpact(partial=partial)


def _impact(changes: tuple[OperatorChange, ...], partial: bool) -> OperatorImpact:
    # Most commits change nothing an operator sees: they share one object.
    return OperatorImpact(changes=changes, partial=partial) if changes else _no_impact(partial)


class Summaries:
    """What a build made of each record, by the digest of the record's stored text.

    Read back as the previous build wrote it, one line per record, each checked and made into a
    SiteCommit when asked for and then dropped: the build holds its commits once, not their rows
    besides (rows for 6,000 commits held 33 MB)."""

    def __init__(self, lines: dict[str, bytes] | None = None, labels: list[Label] | None = None) -> None:
        self._lines: dict[str, bytes] = lines or {}  # the previous build's rows, not yet asked for
        self._labels: list[Label] = labels or []  # the labels they name, by place
        self._commits: list[tuple[str, SiteCommit]] = []  # this build's, for the next one
        self._refused = 0

    def __len__(self) -> int:
        return len(self._lines)

    def commit(self, text_digest: str, wording: Wording | None, source: RecordSource | None) -> SiteCommit | None:
        """The kept commit whose record's text has this digest, with this process's wording and
        source (and noted for the next build); None when there is none, or it fails its checks."""
        line = self._lines.pop(text_digest, None)
        if line is None:
            return None
        try:
            found = _site_commit(_ROW.validate_json(line), self._labels, wording, source)
        except (ValidationError, IndexError):
            self._refused += 1
            return None
        self._commits.append((text_digest, found))
        return found

    def add(self, text_digest: str, commit: SiteCommit) -> None:
        """A commit read from its record, for the next build."""
        self._commits.append((text_digest, commit))

    def forget_unasked(self) -> int:
        """Drops the rows of records this build no longer has (replaced or removed); returns
        how many rows were refused by their checks."""
        self._lines = {}
        if self._refused:
            logger.info("commit-digest: %s kept summaries failed their checks; their records were read", self._refused)
        return self._refused

    def write(self, site_dir: Path, shared: str) -> None:
        """This build's summaries, sorted: a build after a new day writes the same file as a
        build from nothing."""
        path = site_dir / PATH
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        places: dict[tuple[str, LabelSource, str], int] = {}
        rows = [
            text_digest.encode("ascii") + b" " + _ROW.dump_json(_row(commit, places)) + b"\n"
            for text_digest, commit in sorted(self._commits, key=lambda pair: pair[0])
        ]
        with gzip.GzipFile(partial, "wb", compresslevel=1, mtime=0) as out:
            out.write(_HEADER.dump_json(_Header(FORMAT, shared)) + b"\n")
            out.write(_LABELS.dump_json(list(places)) + b"\n")
            out.writelines(rows)
        partial.replace(path)


def recall_summaries(site_dir: Path | None, shared: str) -> Summaries:
    """The summaries the build published at ``site_dir`` kept, when it had the same shared
    inputs; none otherwise (and when the file is missing or unreadable)."""
    if site_dir is None:
        return Summaries()
    path = site_dir / PATH
    if not path.is_file():
        return Summaries()
    lines: dict[str, bytes] = {}
    try:
        with gzip.open(path, "rb") as kept:
            header = _HEADER.validate_json(kept.readline())
            if header.format != FORMAT or header.shared != shared:
                return Summaries()
            labels = [restored_label(*label) for label in _LABELS.validate_json(kept.readline())]
            for line in kept:
                text_digest, _, row = line.partition(b" ")
                lines[text_digest.decode("ascii", errors="replace")] = row
    except (OSError, EOFError, ValidationError) as error:
        logger.info("commit-digest: ignoring %s: %s", path, str(error).splitlines()[0])
        return Summaries()
    return Summaries(lines, labels)
