"""Legacy reports into commit records, and those into the store.

``build_records`` is pure (a parsed report in, records out); ``import_files`` reads and
builds every file before it writes anything, so one bad file changes nothing.

Rows without a sha: the older format's table has no sha and only some rows have a section.
Such a row gets a placeholder sha: 32 hex digits of a hash of (repository, table time as
written, title) followed by the marker ``00000000``. It is deterministic (re-import is a
no-op), marked (a real sha ends in eight zeros once in four billion) and valid for the model;
the marker is at the end so the 12-digit short sha the site uses for page paths stays unique.
When the real commit is already stored (same PR number, or same title within a day) the
import uses it instead; ``reconcile.reconcile_placeholders`` does the same after a later fetch.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, tzinfo
from pathlib import Path

from commit_digest.errors import InputError
from commit_digest.legacy.mapping import map_section, pending_analysis, section_paths
from commit_digest.legacy.parse import LegacyReport, Section, TableRow, parse_report
from commit_digest.meaning.taxonomy import Taxonomy, classify
from commit_digest.models import Commit, CommitRecord, pr_number_in_title
from commit_digest.store.analysis_store import AnalysisStore

logger = logging.getLogger("mkdocs.plugins.commit_digest.legacy")

PLACEHOLDER_MARKER = "00000000"
MATCH_WINDOW = timedelta(hours=26)  # the table's zone may be unknown: a day either way


def placeholder_sha(repository: str, time_text: str, title: str) -> str:
    digest = hashlib.blake2b(f"{repository}\n{time_text}\n{title}".encode(), digest_size=16).hexdigest()
    return digest + PLACEHOLDER_MARKER


def is_placeholder(sha: str) -> bool:
    return sha.endswith(PLACEHOLDER_MARKER)


def normalized_title(title: str) -> str:
    return " ".join(title.split()).casefold()


@dataclass
class ReportImport:
    """One report turned into records, with what the mapping could not place exactly."""

    source_name: str
    report: LegacyReport
    records: list[CommitRecord]
    incomplete: int = 0
    placeholders: int = 0
    unmapped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    stored_new: int = 0
    stored_updated: int = 0

    @property
    def analysed(self) -> int:
        return sum(1 for record in self.records if record.analysis is not None and record.analysis.ok)

    @property
    def pending(self) -> int:
        return len(self.records) - self.analysed


def parse_time(text: str, zone: tzinfo, where: str) -> datetime:
    try:
        naive = datetime.fromisoformat(text.strip())
    except ValueError as error:
        raise InputError(f"{where}: {text!r} is not a time 'YYYY-MM-DD HH:MM:SS'") from error
    return naive.replace(tzinfo=zone)


def _pair(report: LegacyReport) -> tuple[list[tuple[TableRow, Section | None]], list[Section]]:
    """Each table row with its section (by title, then by PR number); sections left over."""
    free = list(report.sections)
    pairs: list[tuple[TableRow, Section | None]] = []
    for row in report.rows:
        key = normalized_title(row.title)
        match = next((section for section in free if normalized_title(section.title or "") == key), None)
        if match is None:
            number = pr_number_in_title(row.title)
            match = next(
                (s for s in free if number is not None and pr_number_in_title(s.title or "") == number), None
            )
        if match is not None:
            free.remove(match)
        pairs.append((row, match))
    return pairs, free


def build_records(report: LegacyReport, *, repository: str, zone: tzinfo, taxonomy: Taxonomy) -> ReportImport:
    name = report.source_name
    created_at = datetime.combine(report.day, time(0, 0), tzinfo=zone)
    result = ReportImport(source_name=name, report=report, records=[])
    pairs, orphans = _pair(report)
    # A section with no table row still becomes a commit: its time is the report's day.
    orphan_rows = [
        (TableRow(section.line, created_at.strftime("%Y-%m-%d %H:%M:%S"), "", section.title or ""), section)
        for section in orphans
    ]
    for section in orphans:
        result.notes.append(f"{name}:{section.line}: section has no row in the commit table")
    for row, section in [*pairs, *orphan_rows]:
        where = f"{name}:{row.line}"
        landed = parse_time(row.time_text, zone, where)
        sha = section.sha if section is not None else None
        if sha is None:
            sha = placeholder_sha(repository, row.time_text, row.title)
            result.placeholders += 1
        commit = Commit(
            repository=repository,
            sha=sha,
            author_name=row.author,
            authored_at=landed,
            committed_at=landed,
            title=row.title,
            body=section.message_body if section is not None else "",
        )
        if section is None:
            analysis = pending_analysis(
                name,
                created_at,
                f"the legacy report {name} lists this commit without an analysis or sha: its sha is a "
                "placeholder until a fetch finds the real commit, which is then analysed",
            )
        else:
            labels = classify(commit.title, commit.body, section_paths(section), taxonomy)
            mapped = map_section(
                section,
                source_name=name,
                created_at=created_at,
                platforms=labels.platforms,
                subsystems=labels.subsystems,
            )
            analysis = mapped.analysis
            result.unmapped.update(mapped.notes.unmapped)
            result.notes.extend(f"{where}: {note}" for note in mapped.notes.missing + mapped.notes.truncated)
            if analysis.provenance.incomplete:
                result.incomplete += 1
        result.records.append(CommitRecord(commit=commit, analysis=analysis))
    return result


def read_reports(paths: Sequence[Path]) -> list[LegacyReport]:
    """Every file parsed, or InputError for the first that is not a legacy report."""
    reports = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(f"{path}: cannot read it as UTF-8 text: {error}") from error
        reports.append(parse_report(text, path.name))
    return reports


def resolve_repository(report: LegacyReport, requested: str | None, default: str) -> str:
    if report.repository and requested and report.repository != requested:
        raise InputError(
            f"{report.source_name}: the report is about {report.repository}, not {requested} (--repo)"
        )
    return report.repository or requested or default


def _known_commits(store: AnalysisStore, repository: str) -> list[Commit]:
    return [record.commit for record in store.records(repository) if not is_placeholder(record.commit.sha)]


def find_real_commit(placeholder: Commit, candidates: Iterable[Commit]) -> Commit | None:
    """The real commit a placeholder stands for: same PR number and title, or same title near in time."""
    title = normalized_title(placeholder.title)
    for candidate in candidates:
        if is_placeholder(candidate.sha) or normalized_title(candidate.title) != title:
            continue
        if placeholder.pr_number is not None and candidate.pr_number == placeholder.pr_number:
            return candidate
        if abs(candidate.committed_at - placeholder.committed_at) <= MATCH_WINDOW:
            return candidate
    return None


def store_records(store: AnalysisStore, built: ReportImport, *, force: bool) -> None:
    """Merges the records; commit facts already stored are kept (they know more than a table)."""
    known = _known_commits(store, built.records[0].commit.repository) if built.records else []
    for record in built.records:
        incoming = record
        if is_placeholder(record.commit.sha):
            real = find_real_commit(record.commit, known)
            if real is not None:
                incoming = record.model_copy(update={"commit": real})
        existing = store.get(*incoming.key)
        if existing is not None:
            incoming = incoming.model_copy(update={"commit": existing.commit})
        if store.merge(incoming, force=force):
            if existing is None:
                built.stored_new += 1
            else:
                built.stored_updated += 1


def import_files(
    paths: Sequence[Path],
    store: AnalysisStore,
    *,
    requested_repository: str | None,
    default_repository: str,
    zone: tzinfo,
    taxonomy: Taxonomy,
    force: bool = False,
) -> list[ReportImport]:
    reports = read_reports(paths)
    built = [
        build_records(
            report,
            repository=resolve_repository(report, requested_repository, default_repository),
            zone=zone,
            taxonomy=taxonomy,
        )
        for report in reports
    ]
    for report_import in built:
        store_records(store, report_import, force=force)
        logger.debug("imported %s: %s records", report_import.source_name, len(report_import.records))
    return built


def repositories_of(results: Sequence[ReportImport]) -> list[str]:
    return sorted({record.commit.repository for result in results for record in result.records})
