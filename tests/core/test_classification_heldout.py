"""The built-in taxonomy against a held-out table of vLLM commits (classification_heldout.yml).

Unlike classification_table.yml, whose every row must match exactly, the held-out rows were
labelled before the rules were run on them and are never fixed one by one: the test asserts
only the micro-averaged precision and recall over the whole table, so a rule change is judged on
commits it was not written for. The figures are printed (``pytest -s`` or ``-rP`` shows them).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from commit_digest.meaning.taxonomy import load_taxonomy
from tests.core.classification_metrics import meets_the_thresholds, scored_report

HELDOUT_PATH = Path(__file__).with_name("classification_heldout.yml")
HARDWARE = ("rocm", "tpu", "xpu", "cpu", "hpu")


@cache
def heldout() -> tuple[dict[str, Any], ...]:
    return tuple(yaml.safe_load(HELDOUT_PATH.read_text(encoding="utf-8")))


def test_heldout_table_is_large_real_and_hardware_heavy() -> None:
    rows = heldout()
    assert len(rows) >= 60
    assert len({row["pr"] for row in rows}) == len(rows)
    taxonomy = load_taxonomy()
    for row in rows:
        assert row["recall"] in {"close", "approximate"}, row["pr"]
        assert row["title"].endswith(f"(#{row['pr']})"), row["pr"]
        assert row["paths"], row["pr"]
        assert set(row["platforms"]) <= set(taxonomy.platform_ids), row["pr"]
        assert set(row["subsystems"]) <= set(taxonomy.subsystem_ids), row["pr"]
    per_platform = Counter(platform for row in rows for platform in row["platforms"])
    assert all(per_platform[platform] >= 5 for platform in HARDWARE), per_platform
    assert per_platform["ascend"] >= 2, per_platform
    # Platform-neutral rows too, or precision would measure nothing.
    assert sum(not row["platforms"] for row in rows) >= 15


def test_heldout_precision_and_recall_meet_the_issue_thresholds() -> None:
    platforms, subsystems, report = scored_report("held-out table", heldout())
    print(report)
    assert meets_the_thresholds(platforms, subsystems), report
