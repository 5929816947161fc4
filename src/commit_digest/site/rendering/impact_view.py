"""Operator changes and related commits in words: one sentence per change or relation, in the
site's language, as HTML (names and values from diffs and titles are untrusted: they reach the
page only as escaped text inside <code>) and as plain text for feeds."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from commit_digest.meaning.impact.extract import OperatorChange
from commit_digest.meaning.impact.findings import ImpactKind
from commit_digest.site.rendering.i18n import Texts

IMPACT_KINDS: tuple[str, ...] = tuple(kind.value for kind in ImpactKind)
# A default written as a plain string literal reads as its value: "0" → 0, 'auto' → auto.
_STRING_LITERAL = re.compile(r"""^(['"])([^'"\\]*)\1$""")
_CAP = 200  # characters of a value shown (a default that is a whole expression)
# One commit may add thousands of names. A listing (week, impact, release page) shows a few of
# each commit's changes and links its page for the rest; the commit's page lists as many as fit
# in its own budget and links its diff on GitHub for the rest. A line is ~300 bytes (up to a few
# KB with the longest names, values and paths), so a budget in bytes, not lines, is what holds.
ENTRY_IMPACT_LINES = 5
ENTRY_IMPACT_BYTES = 3_000
COMMIT_IMPACT_BYTES = 40_000


@dataclass(frozen=True)
class ImpactCut:
    """The operator changes a page shows of a longer list, and how many it leaves to a link."""

    shown: tuple[OperatorChange, ...]
    more: int


def kind_name(kind: str, texts: Texts) -> Markup:
    """What a kind of change is called ("环境变量", "Environment variables")."""
    return texts("impact_kind_" + kind.replace("-", "_"))


def _code(value: str | None) -> Markup:
    if value is None or value == "":
        return Markup("")
    literal = _STRING_LITERAL.match(value)
    if literal is not None and literal.group(2):
        value = literal.group(2)
    text = value if len(value) <= _CAP else value[: _CAP - 1] + "…"
    return Markup("<code>%s</code>") % text


def change_html(change: OperatorChange, texts: Texts) -> Markup:
    """ "New environment variable <code>VLLM_FOO</code> (default <code>0</code>)"."""
    kind = change.kind.value.replace("-", "_")
    verb = change.change.value.replace("-", "_")
    key = f"impact_{kind}_{verb}"
    values: dict[str, object] = {
        "name": _code(change.name),
        "previous": _code(change.previous_name),
        "old": _code(change.old) if change.old else texts("impact_nothing"),
        "new": _code(change.new) if change.new else texts("impact_nothing"),
        "detail": change.detail,
        "message": change.detail[:300] or change.name,
        "default": texts("impact_default", value=_code(change.new)) if change.new else Markup(""),
        "spec": texts("impact_spec", value=_code(change.new)) if change.new else Markup(""),
        "of": texts("impact_of", detail=_code(change.detail)) if change.detail else Markup(""),
    }
    if not texts.has(key):
        key = "impact_other"
        values["kind"] = kind_name(change.kind.value, texts)
        values["change"] = texts("impact_change_" + verb)
    return texts(key, **values)


def change_text(change: OperatorChange, texts: Texts) -> str:
    """The same sentence as plain text (a feed entry's summary)."""
    return change_html(change, texts).striptags()


def kinds_of(changes: Iterable[OperatorChange]) -> tuple[str, ...]:
    """The kinds among ``changes``, in the site's order."""
    found = {change.kind.value for change in changes}
    return tuple(kind for kind in IMPACT_KINDS if kind in found)


def platforms_of(changes: Sequence[OperatorChange]) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for change in changes:
        for platform in change.platforms:
            found.setdefault(platform, None)
    return tuple(found)


def cut_changes(
    changes: Sequence[OperatorChange], size: Callable[[OperatorChange], int], *, budget: int, lines: int | None = None
) -> ImpactCut:
    """The first ``changes`` whose shown sizes (``size``, in bytes) add up to at most ``budget``,
    at most ``lines`` of them: one commit may add thousands of names, and a page lists a few."""
    limit = len(changes) if lines is None else min(lines, len(changes))
    used = 0
    shown = 0
    while shown < limit:
        used += size(changes[shown])
        if used > budget:
            break
        shown += 1
    return ImpactCut(tuple(changes[:shown]), len(changes) - shown)
