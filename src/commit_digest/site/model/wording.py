"""An analysis as a page in one language shows it.

Type, importance and labels are the same in every language; the worded fields are not. An
offline analysis is worded here, at build time, from the commit's stored facts by the offline
rules in the page's language, so one store gives a Chinese and an English site with no
re-analysis. An LLM or legacy analysis shows its wording in the page's language when it has one
(its own or a translation) and otherwise its own, marked with the language it was written in:
a page never mixes languages silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import TEXT_FIELDS, Analysis, CommitRecord, LanguageCode


@dataclass(frozen=True)
class Worded:
    analysis: Analysis | None
    # Set when the analysis is shown in the language it was written in, not the page's.
    original_language: LanguageCode | None = None


class Wording:
    """Words stored analyses in ``language``; one per build, shared by every commit."""

    def __init__(self, language: LanguageCode, taxonomy: Taxonomy) -> None:
        self.language = language
        self._offline = OfflineAnalyzer(taxonomy, language)

    def word(self, record: CommitRecord) -> Worded:
        analysis = record.analysis
        if analysis is None or not analysis.ok:
            return Worded(analysis)
        if analysis.provenance.analyzer == self._offline.name:
            return Worded(self._reworded_offline(record, analysis))
        worded = analysis.in_language(self.language)
        if worded is not None:
            return Worded(worded)
        return Worded(analysis, analysis.language)

    def _reworded_offline(self, record: CommitRecord, stored: Analysis) -> Analysis:
        # The stored labels, type and importance stay (they are what the site lists the commit
        # under); only the words are the rules' in this language.
        text = self._offline.analyze(record.commit).text()
        fields = {name: getattr(text, name) for name in TEXT_FIELDS}
        provenance = stored.provenance.model_copy(update={"language": self.language})
        return stored.model_copy(update={**fields, "provenance": provenance})
