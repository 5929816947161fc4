"""The built-in taxonomy against a table of real vLLM commits with the labels an engineer would give.

Every row must match exactly (expected set == classified set, for platforms and for
subsystems), every label must carry its reasons, and the table must describe the same
commits (titles, messages, paths) as the embedded sample the demo site is built from.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from commit_digest.meaning.taxonomy import Classification, classify, load_taxonomy
from commit_digest.models import Commit, LabelSource
from commit_digest.store.exchange import read_all_records
from tests.core.classification_metrics import meets_the_thresholds, scored_report

TABLE_PATH = Path(__file__).with_name("classification_table.yml")
TESTS_OR_DOCS_PREFIXES = ("tests/", "docs/")


@cache
def table() -> tuple[dict[str, Any], ...]:
    return tuple(yaml.safe_load(TABLE_PATH.read_text(encoding="utf-8")))


@cache
def sample_commits() -> dict[int, Commit]:
    text = resources.files("commit_digest").joinpath("data/sample-vllm.jsonl").read_text(encoding="utf-8")
    records = read_all_records(text.splitlines(), source="sample-vllm.jsonl")
    return {record.commit.pr_number: record.commit for record in records if record.commit.pr_number}


def classified(row: dict[str, Any]) -> Classification:
    return classify(row["title"], row.get("message", ""), row["paths"], load_taxonomy())


def row_id(row: dict[str, Any]) -> str:
    return f"#{row['pr']}"


def only_under(row: dict[str, Any], prefix: str) -> bool:
    return all(path.startswith(prefix) for path in row["paths"])


ROWS = table()


@pytest.mark.parametrize("row", ROWS, ids=[row_id(row) for row in ROWS])
def test_row_gets_exactly_the_expected_labels(row: dict[str, Any]) -> None:
    result = classified(row)
    got_platforms = {label.id for label in result.platforms}
    got_subsystems = {label.id for label in result.subsystems}
    assert (got_platforms, got_subsystems) == (set(row["platforms"]), set(row["subsystems"])), (
        f"{row['title']}\nreasons: {result.reasons}"
    )


@pytest.mark.parametrize("row", ROWS, ids=[row_id(row) for row in ROWS])
def test_every_label_keeps_its_reasons(row: dict[str, Any]) -> None:
    result = classified(row)
    for label in (*result.platforms, *result.subsystems):
        assert label.source is LabelSource.RULE
        assert label.reason.strip(), label
        assert result.reasons[label.id], label
        # The shown reason is built from the recorded ones, not a generic phrase.
        assert result.reasons[label.id][0] in label.reason


def test_table_precision_and_recall() -> None:
    """The same figures as the held-out table's; here every row must match anyway, so they are
    1.0, and printed beside the held-out ones to compare (``pytest -s`` or ``-rP``)."""
    platforms, subsystems, report = scored_report("main table", table())
    print(report)
    assert meets_the_thresholds(platforms, subsystems), report


def test_table_is_large_and_covers_the_hard_cases() -> None:
    rows = table()
    assert len(rows) >= 60
    assert len({row["pr"] for row in rows}) == len(rows)
    tests_only = [row for row in rows if only_under(row, "tests/")]
    docs_only = [
        row for row in rows if all(path.startswith("docs/") or path.endswith(".md") for path in row["paths"])
    ]
    assert len(tests_only) >= 4
    assert len(docs_only) >= 4
    titles = [row["title"] for row in rows]
    assert any(title.startswith("[Bugfix][Hardware][AMD]") for title in titles)
    assert any(title.startswith("[CI/Build][Hardware][AMD]") for title in titles)
    assert sum(title.startswith("fix(rocm):") for title in titles) >= 2
    assert any(title.startswith("feat(moe):") for title in titles)


def test_tests_only_and_docs_only_rows_get_platforms_only_from_words_or_tags() -> None:
    """A tests-only or docs-only change never earns a platform from its paths."""
    for row in table():
        if not all(path.startswith(TESTS_OR_DOCS_PREFIXES) or path.endswith(".md") for path in row["paths"]):
            continue
        result = classified(row)
        for label in result.platforms:
            reasons = result.reasons[label.id]
            assert not any(reason.startswith("path ") for reason in reasons), (row["title"], label)


def test_table_rows_are_the_sample_commits() -> None:
    commits = sample_commits()
    for row in table():
        commit = commits[row["pr"]]
        assert commit.title == row["title"]
        assert commit.body == row.get("message", "")
        assert [change.path for change in commit.files] == row["paths"]
        assert commit.committed_at.date().isoformat() == row["day"]
        assert row["day"] != "2026-01-09", "2026-01-09 is synthesized: the table holds real commits only"
