"""Operator changes in words: names, values and messages from diffs are untrusted and reach the
page only as escaped text."""

from __future__ import annotations

import pytest

from commit_digest.meaning.impact import ChangeKind, ImpactKind, OperatorChange
from commit_digest.meaning.relations.relation import Relation, RelationKind
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.rendering.impact_view import change_html, change_text

SCRIPT = '<script>alert("x")</script>'


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize(
    "change",
    [
        OperatorChange(kind=ImpactKind.ENV_VAR, change=ChangeKind.ADDED, name=SCRIPT, new=f"'{SCRIPT}'", path="a.py"),
        OperatorChange(
            kind=ImpactKind.CLI_FLAG,
            change=ChangeKind.RENAMED,
            name="--new",
            previous_name=SCRIPT,
            old=SCRIPT,
            new=SCRIPT,
            path="a.py",
        ),
        OperatorChange(kind=ImpactKind.DEPRECATION, change=ChangeKind.ADDED, name=SCRIPT, detail=SCRIPT, path="a.py"),
        OperatorChange(kind=ImpactKind.DEPENDENCY, change=ChangeKind.REMOVED, name=SCRIPT, detail=SCRIPT, path="x"),
        # A (kind, change) with no sentence of its own words it by the fallback.
        OperatorChange(
            kind=ImpactKind.DEPRECATION, change=ChangeKind.VERSION_CHANGED, name=SCRIPT, detail=SCRIPT, path="a.py"
        ),
    ],
)
def test_untrusted_names_values_and_messages_are_escaped(change: OperatorChange, language: str) -> None:
    html = change_html(change, Texts(language))
    assert "<script" not in html and "&lt;script&gt;" in html
    assert SCRIPT in change_text(change, Texts(language))  # the feed's plain text says it as written


def test_a_reference_url_is_quoted() -> None:
    relation = Relation(RelationKind.FIXES, None, ('own"er/repo<x>', 7))
    assert relation.url == "https://github.com/own%22er/repo%3Cx%3E/issues/7"
    assert Relation(RelationKind.FIXES, None, ("vllm-project/vllm", 12)).url == (
        "https://github.com/vllm-project/vllm/issues/12"
    )


@pytest.mark.parametrize(
    ("language", "expected"),
    [("zh", "弃用：<code>old_api</code>（移除）"), ("en", "Deprecations: <code>old_api</code> (removed)")],
)
def test_a_change_with_no_sentence_of_its_own_names_its_kind_and_change_in_words(language: str, expected: str) -> None:
    """A removed deprecation warning has no sentence of its own: its change is in words, not the code name."""
    change = OperatorChange(kind=ImpactKind.DEPRECATION, change=ChangeKind.REMOVED, name="old_api", path="vllm/x.py")
    assert str(change_html(change, Texts(language))) == expected
