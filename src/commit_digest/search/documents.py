"""What the search covers of each commit, and the names the search page shows.

``search_text`` is the one definition of a commit's searchable text: the index is built from it
and the recall benchmark counts its expected matches over it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from commit_digest.models import Analysis, ChangeType, CommitRecord, Importance
from commit_digest.search.index import SearchDocument, SearchNames
from commit_digest.site.model import SiteCommit, SiteIndex
from commit_digest.taxonomy import LabelRule, Taxonomy
from commit_digest.vocabulary import IMPORTANCE_NAMES, change_type_name

_IMPORTANCE_MARKS = {Importance.HIGH: "🔴", Importance.MEDIUM: "🟡", Importance.LOW: "🟢"}
_NOT_ANALYSED = {"zh": "⚪ 未分析", "en": "⚪ not analysed"}


def _label_names(rule: LabelRule | None, label_id: str) -> str:
    return f"{label_id} {rule.name.zh} {rule.name.en}" if rule else label_id


def search_text(
    record: CommitRecord,
    taxonomy: Taxonomy,
    *,
    analysis: Analysis | None = None,
    platforms: Sequence[str] = (),
    subsystems: Sequence[str] = (),
) -> str:
    """Title, message, author, changed paths, PR text, the whole analysis and the label names.

    ``analysis`` is the analysis as the site's language words it (default: the stored one);
    ``platforms``/``subsystems`` are the label ids the site gives the commit (the rules' labels
    when it has no analysis yet); their zh and en names are searchable too.
    """
    commit = record.commit
    # The short sha too: a reader pastes a prefix from a log or a chat (7 characters or more).
    parts: list[str] = [commit.sha[:12], commit.title, commit.body, commit.author_name, commit.author_login or ""]
    parts.extend(change.path for change in commit.files)
    if commit.pull_request is not None:
        if commit.pull_request.description != commit.body:
            parts.append(commit.pull_request.description)
        parts.extend(commit.pull_request.labels)
    analysis = analysis or record.analysis
    if analysis is not None and analysis.ok:
        parts.append(change_type_name(analysis.change_type, "zh"))
        parts.append(change_type_name(analysis.change_type, "en"))
        parts.extend(analysis.summary)
        for item in analysis.impact_scope:
            parts.extend((item.area, item.note))
        insights = analysis.insights
        parts.extend(
            text
            for text in (
                insights.architecture,
                insights.performance,
                insights.security,
                insights.maintainability,
                insights.compatibility,
            )
            if text
        )
        parts.extend(analysis.risks)
        for recommendation in analysis.recommendations:
            parts.extend((recommendation.audience, recommendation.advice))
        parts.append(analysis.conclusion)
    parts.extend(_label_names(taxonomy.platform(label), label) for label in platforms)
    parts.extend(_label_names(taxonomy.subsystem(label), label) for label in subsystems)
    return "\n".join(part for part in parts if part)


def search_document(item: SiteCommit, taxonomy: Taxonomy) -> SearchDocument:
    platforms = tuple(label.id for label in item.platforms)
    subsystems = tuple(label.id for label in item.subsystems)
    return SearchDocument(
        sha12=item.sha[:12],
        title=item.record.commit.title,
        day=item.day,
        importance="" if item.group not in {level.value for level in Importance} else item.group,
        change_type=item.change_type or "",
        platforms=platforms,
        subsystems=subsystems,
        text=search_text(item.record, taxonomy, analysis=item.analysis, platforms=platforms, subsystems=subsystems),
    )


def search_documents(index: SiteIndex, taxonomy: Taxonomy) -> Iterator[SearchDocument]:
    """Newest first, one at a time (the text of a commit exists only while it is indexed)."""
    for day in index.days:
        for item in day.newest_first:
            yield search_document(item, taxonomy)


def search_names(taxonomy: Taxonomy, language: str) -> SearchNames:
    importance = {
        level.value: f"{_IMPORTANCE_MARKS[level]} {IMPORTANCE_NAMES[language][level]}" for level in Importance
    }
    importance[""] = _NOT_ANALYSED[language]
    return SearchNames(
        platforms=tuple((rule.id, rule.name.in_language(language)) for rule in taxonomy.platforms),
        subsystems=tuple((rule.id, rule.name.in_language(language)) for rule in taxonomy.subsystems),
        importance=importance,
        change_types={kind.value: change_type_name(kind, language) for kind in ChangeType},
    )
