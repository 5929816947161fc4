"""An analysis in several languages: its own wording, translations, and how they merge in the store."""

from __future__ import annotations

import pytest

from commit_digest.models import AnalysisText, CommitRecord
from commit_digest.store.analysis_store import AnalysisStore
from tests.core.test_store import analysis
from tests.factories import REPOSITORY, make_commit

ENGLISH = AnalysisText(summary=("Fixes the scheduler.",), risks=("Edge cases.",), conclusion="Worth a look.")


def test_an_analysis_is_worded_in_its_own_language_and_its_translations() -> None:
    chinese = analysis("llm:m")
    assert chinese.language == "zh" and chinese.languages == ("zh",)
    assert chinese.in_language("zh") is chinese and chinese.in_language("en") is None
    both = chinese.with_translation("en", ENGLISH)
    assert both.languages == ("zh", "en")
    english = both.in_language("en")
    assert english is not None and english.summary == ("Fixes the scheduler.",)
    assert english.conclusion == "Worth a look."
    assert english.provenance.language == "en" and english.importance == chinese.importance
    assert english.text() == ENGLISH
    with pytest.raises(ValueError, match="worded in zh already"):
        chinese.with_translation("zh", ENGLISH)


def test_a_translation_merges_into_the_stored_analysis_and_never_replaces_it(store: AnalysisStore) -> None:
    commit = make_commit(1)
    original = analysis("llm:m")
    store.merge(CommitRecord(commit=commit, analysis=original))
    assert store.merge(CommitRecord(commit=commit, analysis=original.with_translation("en", ENGLISH)))
    stored = store.get(REPOSITORY, commit.sha)
    assert stored is not None and stored.analysis is not None
    assert stored.analysis.summary == original.summary and stored.analysis.translations == {"en": ENGLISH}
    # Meeting the analysis again without its translation (an older export) keeps the translation.
    assert not store.merge(CommitRecord(commit=commit, analysis=original))
    assert store.get(REPOSITORY, commit.sha).analysis.translations == {"en": ENGLISH}  # type: ignore[union-attr]
    # A newer analysis replaces the old one, translations and all.
    newer = analysis("llm:m", minutes=5)
    store.merge(CommitRecord(commit=commit, analysis=newer))
    assert store.get(REPOSITORY, commit.sha).analysis == newer  # type: ignore[union-attr]
