"""Micro-averaged precision and recall of the taxonomy rules over a labelled table of commits.

A row is a mapping with ``title``, ``paths``, ``platforms`` and ``subsystems`` (and optionally
``message``); every label expected or given counts once per row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from commit_digest.meaning.taxonomy import classify, load_taxonomy

KINDS = ("platforms", "subsystems")

# What issue 16 asks of the offline rules on vLLM, from title, message and paths.
PLATFORM_PRECISION = PLATFORM_RECALL = 0.95
SUBSYSTEM_PRECISION = 0.85
SUBSYSTEM_RECALL = 0.90


@dataclass(frozen=True)
class Score:
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    # (label, row id) of every wrong label, to say which rows cost what when a threshold fails.
    extra: tuple[tuple[str, str], ...] = field(default=())
    missing: tuple[tuple[str, str], ...] = field(default=())

    @property
    def precision(self) -> float:
        given = self.true_positives + self.false_positives
        return self.true_positives / given if given else 1.0

    @property
    def recall(self) -> float:
        expected = self.true_positives + self.false_negatives
        return self.true_positives / expected if expected else 1.0

    def describe(self, kind: str) -> str:
        return (
            f"{kind}: precision {self.precision:.3f}, recall {self.recall:.3f} "
            f"(tp {self.true_positives}, fp {self.false_positives}, fn {self.false_negatives}); "
            f"extra {list(self.extra)}; missing {list(self.missing)}"
        )


def score(rows: Iterable[Mapping[str, Any]]) -> dict[str, Score]:
    taxonomy = load_taxonomy()
    counts = {kind: [0, 0, 0] for kind in KINDS}
    extra: dict[str, list[tuple[str, str]]] = {kind: [] for kind in KINDS}
    missing: dict[str, list[tuple[str, str]]] = {kind: [] for kind in KINDS}
    for row in rows:
        result = classify(row["title"], row.get("message", ""), row["paths"], taxonomy)
        row_id = f"#{row['pr']}"
        for kind in KINDS:
            got = {label.id for label in getattr(result, kind)}
            expected = set(row[kind])
            counts[kind][0] += len(got & expected)
            counts[kind][1] += len(got - expected)
            counts[kind][2] += len(expected - got)
            extra[kind].extend((label, row_id) for label in sorted(got - expected))
            missing[kind].extend((label, row_id) for label in sorted(expected - got))
    return {kind: Score(*counts[kind], extra=tuple(extra[kind]), missing=tuple(missing[kind])) for kind in KINDS}


def scored_report(name: str, rows: Sequence[Mapping[str, Any]]) -> tuple[Score, Score, str]:
    """The platform and subsystem scores of ``rows``, and the lines that show them."""
    scores = score(rows)
    platforms, subsystems = scores["platforms"], scores["subsystems"]
    lines = (f"{name} ({len(rows)} rows)", platforms.describe("platforms"), subsystems.describe("subsystems"))
    return platforms, subsystems, "\n  ".join(lines)


def meets_the_thresholds(platforms: Score, subsystems: Score) -> bool:
    return (
        platforms.precision >= PLATFORM_PRECISION
        and platforms.recall >= PLATFORM_RECALL
        and subsystems.precision >= SUBSYSTEM_PRECISION
        and subsystems.recall >= SUBSYSTEM_RECALL
    )
