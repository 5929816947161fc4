"""A listing shows the first few of a commit's operator changes, within a number of lines and a
number of bytes, and says how many it leaves out."""

from __future__ import annotations

from commit_digest.meaning.impact import ChangeKind, ImpactKind, OperatorChange
from commit_digest.site.rendering.impact_view import cut_changes

CHANGES = tuple(
    OperatorChange(kind=ImpactKind.ENV_VAR, change=ChangeKind.ADDED, name=f"VLLM_{'X' * number}", path="vllm/envs.py")
    for number in range(1, 11)
)


def _size(change: OperatorChange) -> int:
    return len(change.name)


def test_the_first_changes_within_the_lines_and_the_bytes() -> None:
    assert cut_changes(CHANGES, _size, budget=1_000, lines=3).shown == CHANGES[:3]
    cut = cut_changes(CHANGES, _size, budget=6 + 7 + 8, lines=None)  # VLLM_X, VLLM_XX, VLLM_XXX
    assert (cut.shown, cut.more) == (CHANGES[:3], 7)
    assert cut_changes(CHANGES, _size, budget=6 + 7 + 7).more == 8  # the third passes the budget


def test_everything_when_it_fits_and_nothing_when_no_line_does() -> None:
    assert cut_changes(CHANGES, _size, budget=10_000).more == 0
    assert cut_changes(CHANGES, _size, budget=5) == cut_changes(CHANGES, _size, budget=1_000, lines=0)
    assert cut_changes(CHANGES, _size, budget=5).more == 10
    assert cut_changes((), _size, budget=0).more == 0
