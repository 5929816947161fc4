"""A commit as the search index takes it in: its searchable text by field, best first, the grams
each field gives (label grams included), and the row a result shows.

Separate from the index's files so the documents (``documents``), the index builder (``index``)
and the reference reader (``reader``) share one definition of what a document holds and which
grams mark its labels, without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from commit_digest.search.query import PULL_REQUEST_GRAM
from commit_digest.search.tokens import RunGrams, RunKey, grams_of, run_keys

PLATFORM_GRAM = "\x01p:"  # label grams: no text gram starts with a control character
SUBSYSTEM_GRAM = "\x01s:"
IMPORTANCE_GRAM = "\x01i:"
REPOSITORY_GRAM = "\x01r:"  # only on a site of several repositories
# Fields, best first: a gram's level in a document is the best field holding it.
TITLE, LABELS, SUMMARY, BODY = 3, 2, 1, 0


@dataclass(frozen=True)
class SearchFields:
    """A commit's searchable text by field, best first (a match in the title ranks highest)."""

    title: str  # the title, the short sha and the pull request number
    labels: str  # label names, change type names, the pull request's labels
    summary: str  # the analysis's summary and conclusion
    body: str  # the rest: message, author, paths, the analysis's details

    def by_level(self) -> tuple[tuple[int, str], ...]:
        return ((TITLE, self.title), (LABELS, self.labels), (SUMMARY, self.summary), (BODY, self.body))

    @property
    def text(self) -> str:
        return "\n".join(text for text in (self.title, self.labels, self.summary, self.body) if text)


@dataclass(frozen=True)
class SearchDocument:
    sha12: str
    title: str
    day: date
    importance: str  # "high" / "medium" / "low", or "" when not analysed
    change_type: str  # a ChangeType value, or "" when not analysed
    platforms: tuple[str, ...]
    subsystems: tuple[str, ...]
    fields: SearchFields
    pull_request: int | None = None
    excerpt: str = ""  # the text a result shows, in the site's language
    repository: str = ""  # owner/name on a site of several repositories, else ""

    @property
    def text(self) -> str:
        """Everything searchable, fields separated by newlines."""
        return self.fields.text

    def row(self) -> list[object]:
        return [
            self.sha12,
            self.title,
            self.day.isoformat(),
            self.importance,
            self.change_type,
            list(self.platforms),
            list(self.subsystems),
            self.pull_request or 0,
            self.excerpt,
            self.repository,
        ]

    def grams_by_level(self, known: RunGrams | None = None) -> list[tuple[int, set[str]]]:
        """The document's grams by level, best first, each gram under the best field holding it
        (``known``: as for ``grams_of``)."""
        known = {} if known is None else known
        groups: list[tuple[int, set[str]]] = []
        taken_keys: set[RunKey] = set()
        taken: set[str] = set()
        for level, text in self.fields.by_level():
            # A run a better field holds gave its grams there: only the others are cut up.
            keys = run_keys(text)
            keys.difference_update(taken_keys)
            taken_keys.update(keys)
            grams = grams_of(keys, known)
            grams.difference_update(taken)
            taken.update(grams)
            groups.append((level, grams))
        # Label grams start with a control character, so no text gram is one of them: each joins
        # the group of its level as it is.
        labels, title = dict(groups)[LABELS], dict(groups)[TITLE]
        labels.update(PLATFORM_GRAM + label for label in self.platforms)
        labels.update(SUBSYSTEM_GRAM + label for label in self.subsystems)
        if self.importance:
            labels.add(IMPORTANCE_GRAM + self.importance)
        if self.pull_request:
            title.add(PULL_REQUEST_GRAM + str(self.pull_request))
        if self.repository:
            labels.add(REPOSITORY_GRAM + self.repository)
        return groups
