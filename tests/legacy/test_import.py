"""Importing the three real reports: counts, stats, shas, fields, idempotence, preference, errors."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stdout
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from commit_digest.cli import main
from commit_digest.legacy.importer import find_real_commit, is_placeholder, placeholder_sha
from commit_digest.legacy.parse import LegacyReport
from commit_digest.legacy.reconcile import reconcile_placeholders
from commit_digest.models import (
    Analysis,
    AnalysisStatus,
    ChangeType,
    Commit,
    CommitRecord,
    Importance,
    Provenance,
)
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.exchange import write_records
from tests.legacy.conftest import NEWER, NEWER_HIGH, OLDER, REPOSITORY, SEEDS, UTC, ImportedArchive


def day_stats(store: AnalysisStore, day: date) -> tuple[int, int, int, int, int]:
    """(total, high, medium, low, pending) from the stored analyses of one day."""
    records = [record for record in store.records(REPOSITORY) if record.commit.day(UTC) == day]
    counts = Counter(
        record.analysis.importance if record.analysis is not None and record.analysis.ok else "pending"
        for record in records
    )
    return (
        len(records),
        counts[Importance.HIGH],
        counts[Importance.MEDIUM],
        counts[Importance.LOW],
        counts["pending"],
    )


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


def test_every_table_row_becomes_a_commit(imported: ImportedArchive) -> None:
    assert [len(result.records) for result in imported.results] == [54, 30, 43]
    with imported.open() as store:
        assert len(store) == 54 + 30 + 43


def test_day_stats_equal_the_reports_stats_lines(
    imported: ImportedArchive, reports: dict[str, LegacyReport]
) -> None:
    with imported.open() as store:
        assert day_stats(store, date(2026, 1, 8)) == (54, 8, 17, 29, 0)
        assert day_stats(store, date(2026, 1, 15)) == (30, 2, 14, 14, 0)
        # The older report has no stats line: 28 analysed rows, 15 rows without a section.
        total, high, medium, low, pending = day_stats(store, date(2026, 1, 7))
        assert (total, high + medium + low, pending) == (43, 28, 15)
    for name in (NEWER_HIGH.name, NEWER.name):
        stats = reports[name].stats
        assert stats is not None and stats.total == stats.high + stats.medium + stats.low


def test_every_sha_from_a_section_link_is_kept(
    imported: ImportedArchive, reports: dict[str, LegacyReport]
) -> None:
    with imported.open() as store:
        for report in reports.values():
            for section in report.sections:
                assert section.sha is not None
                record = store.get(REPOSITORY, section.sha)
                assert record is not None, f"{report.source_name}:{section.line} {section.sha}"
                assert record.analysis is not None and record.analysis.ok


def test_rows_keep_time_author_title_and_pr(imported: ImportedArchive) -> None:
    with imported.open() as store:
        record = store.get(REPOSITORY, "03fd76c57002747ded9bee5e7a5a699475cb4e9f")
    assert record is not None
    commit = record.commit
    assert commit.title == "[Model] Add LFM2-VL model support (#31758)"
    assert commit.author_name == "tianshu-Michael-yu"
    assert commit.committed_at == datetime(2026, 1, 8, 21, 0, 27, tzinfo=UTC)
    assert commit.pr_number == 31758


def test_imported_fields_are_not_empty_where_the_report_had_them(
    imported: ImportedArchive, reports: dict[str, LegacyReport]
) -> None:
    checks = {
        "summary": lambda a: a.summary,
        "impact": lambda a: a.impact_scope,
        "insights": lambda a: [v for v in a.insights.model_dump().values() if v],
        "risks": lambda a: a.risks,
        "recommendations": lambda a: a.recommendations or a.conclusion,
        "conclusion": lambda a: a.conclusion,
    }
    seen: Counter[str] = Counter()
    with imported.open() as store:
        for report in reports.values():
            for section in report.sections:
                record = store.get(REPOSITORY, section.sha or "")
                assert record is not None and record.analysis is not None
                for key, read in checks.items():
                    blocks = section.field(key)  # type: ignore[arg-type]
                    if any(
                        block.inline.strip() or any(line.strip() for line in block.lines) for block in blocks
                    ):
                        seen[key] += 1
                        assert read(record.analysis), f"{report.source_name}:{section.line}: {key} is empty"
    assert seen["summary"] == 54 + 30 + 28 and seen["insights"] >= 30 and seen["conclusion"] >= 2


def test_provenance_and_labels(imported: ImportedArchive) -> None:
    with imported.open() as store:
        records = list(store.records(REPOSITORY))
    analysed = [record.analysis for record in records if record.analysis is not None and record.analysis.ok]
    for analysis in analysed:
        provenance = analysis.provenance
        assert provenance.analyzer == f"legacy:{provenance.source_file}"
        assert provenance.language == "zh" and provenance.status is AnalysisStatus.OK
        assert provenance.created_at.date() in {date(2026, 1, 7), date(2026, 1, 8), date(2026, 1, 15)}
        assert all(label.source.value == "rule" for label in analysis.platforms + analysis.subsystems)
    assert sum(1 for analysis in analysed if analysis.provenance.incomplete) == 7
    # Two sections state no type, three say 其他 themselves.
    assert Counter(a.change_type for a in analysed)[ChangeType.OTHER] == 5
    rocm = [a for r, a in ((r, r.analysis) for r in records) if a and "[ROCm]" in r.commit.title and a.ok]
    assert rocm and all("rocm" in {label.id for label in a.platforms} for a in rocm)


def test_rows_without_a_sha_get_a_marked_placeholder_and_wait_for_analysis(imported: ImportedArchive) -> None:
    with imported.open() as store:
        placeholders = [record for record in store.records(REPOSITORY) if is_placeholder(record.commit.sha)]
    assert len(placeholders) == 15
    for record in placeholders:
        assert record.status is AnalysisStatus.PENDING
        assert record.commit.sha == placeholder_sha(
            REPOSITORY, record.commit.committed_at.strftime("%Y-%m-%d %H:%M:%S"), record.commit.title
        )
        assert record.analysis is not None and "002_90d04fa18592eadf.txt" in (
            record.analysis.provenance.error or ""
        )


def test_import_twice_changes_nothing(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    status, first = run("import-legacy", "--cache", cache, *map(str, SEEDS))
    assert status == 0
    assert "54 commits, 54 analysed, 0 pending, 5 incomplete" in first
    with AnalysisStore(cache) as store:
        before = io.StringIO()
        write_records(store.records(), before)
    status, second = run("import-legacy", "--cache", cache, *map(str, SEEDS))
    assert status == 0
    assert second.count("stored 0 new, 0 updated") == 3
    with AnalysisStore(cache) as store:
        after = io.StringIO()
        write_records(store.records(), after)
    assert after.getvalue() == before.getvalue()
    # Forcing the same analyses over themselves changes nothing either.
    status, forced = run("import-legacy", "--cache", cache, "--force", str(OLDER))
    assert status == 0 and forced.count("stored 0 new, 0 updated") == 1


def _llm_analysis(when: datetime) -> Analysis:
    return Analysis(
        change_type=ChangeType.BUGFIX,
        importance=Importance.HIGH,
        summary=("LLM summary",),
        provenance=Provenance(analyzer="llm:test-model", prompt_version="v1", created_at=when),
    )


def test_an_llm_analysis_is_kept_unless_forced(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    sha = "03fd76c57002747ded9bee5e7a5a699475cb4e9f"
    commit = Commit(
        repository=REPOSITORY,
        sha=sha,
        author_name="t",
        authored_at=datetime(2026, 1, 8, 21, tzinfo=UTC),
        committed_at=datetime(2026, 1, 8, 21, tzinfo=UTC),
        title="[Model] Add LFM2-VL model support (#31758)",
        body="the real message",
    )
    with AnalysisStore(cache) as store:
        store.put(CommitRecord(commit=commit, analysis=_llm_analysis(datetime(2026, 1, 1, tzinfo=UTC))))
    assert run("import-legacy", "--cache", str(cache), str(NEWER_HIGH))[0] == 0
    with AnalysisStore(cache) as store:
        kept = store.get(REPOSITORY, sha)
    assert kept is not None and kept.analysis is not None
    assert kept.analysis.provenance.analyzer == "llm:test-model"
    assert kept.commit.body == "the real message"  # the stored commit knows more than the table
    assert run("import-legacy", "--cache", str(cache), "--force", str(NEWER_HIGH))[0] == 0
    with AnalysisStore(cache) as store:
        forced = store.get(REPOSITORY, sha)
    assert forced is not None and forced.analysis is not None
    assert forced.analysis.provenance.analyzer == f"legacy:{NEWER_HIGH.name}"


def test_a_file_that_is_not_a_report_stops_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    stray = tmp_path / "notes.md"
    stray.write_text("# Notes\n\n| a | b |\n", encoding="utf-8")
    status = main(["import-legacy", "--cache", str(cache), str(NEWER_HIGH), str(stray)])
    captured = capsys.readouterr()
    assert status == 2
    error_lines = captured.err.strip().splitlines()
    assert error_lines == [
        "commit-digest import-legacy: error: notes.md: not a legacy daily report: "
        "its first line should be '# 每日更新报告（YYYY-MM-DD）'"
    ]
    with AnalysisStore(cache) as store:
        assert len(store) == 0  # the good file before it was not written either


def test_repository_mismatch_and_time_zone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "cache"
    assert main(["import-legacy", "--cache", str(cache), "--repo", "other/repo", str(NEWER)]) == 2
    assert "about vllm-project/vllm, not other/repo" in capsys.readouterr().err
    assert main(["import-legacy", "--cache", str(cache), "--tz", "Asia/Shanghai", str(NEWER)]) == 0
    with AnalysisStore(cache) as store:
        record = store.get(REPOSITORY, "28459785ff905648f08a42049904d7d162646398")
    assert record is not None
    assert record.commit.committed_at == datetime(2026, 1, 15, 19, 52, 12, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert record.commit.committed_at.utcoffset() == timedelta(hours=8)


def test_a_placeholder_row_uses_the_real_commit_when_it_is_already_stored(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    title = "[Perf][Kernels] Enable FlashInfer DeepGEMM swapAB on SM90 (for W8A8 Linear Op) (#29213)"
    real = Commit(
        repository=REPOSITORY,
        sha="f" * 40,
        author_name="Kate Cheng",
        authored_at=datetime(2026, 1, 7, 23, 50, tzinfo=UTC),
        committed_at=datetime(2026, 1, 7, 23, 53, 54, tzinfo=UTC),
        title=title,
    )
    with AnalysisStore(cache) as store:
        store.add_commit(real)
    assert run("import-legacy", "--cache", str(cache), str(OLDER))[0] == 0
    with AnalysisStore(cache) as store:
        shas = {record.commit.sha for record in store.records(REPOSITORY) if record.commit.title == title}
        assert shas == {"f" * 40}
        assert len(store) == 43


def test_find_real_commit_matches_pr_and_title_or_title_near_in_time() -> None:
    when = datetime(2026, 1, 7, 12, tzinfo=UTC)

    def commit(sha: str, title: str, at: datetime) -> Commit:
        return Commit(
            repository=REPOSITORY, sha=sha, author_name="a", authored_at=at, committed_at=at, title=title
        )

    placeholder = commit(placeholder_sha(REPOSITORY, "2026-01-07 12:00:00", "Fix x (#5)"), "Fix x (#5)", when)
    assert (
        find_real_commit(placeholder, [commit("a" * 40, "Fix  x (#5)", when + timedelta(days=30))])
        is not None
    )
    assert find_real_commit(placeholder, [commit("b" * 40, "Fix y (#5)", when)]) is None
    no_pr = commit(placeholder_sha(REPOSITORY, "2026-01-07 12:00:00", "Fix x"), "Fix x", when)
    assert find_real_commit(no_pr, [commit("c" * 40, "Fix x", when + timedelta(hours=8))]) is not None
    assert find_real_commit(no_pr, [commit("d" * 40, "Fix x", when + timedelta(days=3))]) is None


def test_export_of_the_import_is_valid_json_lines(imported: ImportedArchive) -> None:
    with imported.open() as store:
        out = io.StringIO()
        count = write_records(store.records(), out)
    assert count == 127
    for line in out.getvalue().splitlines():
        CommitRecord.model_validate(json.loads(line))


def test_a_later_fetch_reconciles_placeholders_with_real_commits(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    title = "[Chore] Migrate V0 attention utils (#31891)"
    assert run("import-legacy", "--cache", str(cache), str(OLDER))[0] == 0
    with AnalysisStore(cache) as store:
        placeholder = next(r for r in store.records(REPOSITORY) if r.commit.title == title)
        assert is_placeholder(placeholder.commit.sha)
        # What a fetch stores: the real commit, found by its PR number and title.
        real = placeholder.commit.model_copy(update={"sha": "e" * 40, "body": "real message"})
        store.add_commit(real)
        assert reconcile_placeholders(store, REPOSITORY) == 1
        assert store.get(REPOSITORY, placeholder.commit.sha) is None
        moved = store.get(REPOSITORY, "e" * 40)
        assert moved is not None and moved.commit.body == "real message"
        assert moved.status is AnalysisStatus.PENDING  # still waiting for `analyze`
        assert len(store) == 43
        assert reconcile_placeholders(store, REPOSITORY) == 0
