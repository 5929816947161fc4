"""What the search covers of each commit, and the names the search page shows.

``search_fields`` is the one definition of a commit's searchable text: the index is built from
it and the recall benchmark counts its expected matches over it (``search_text``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from commit_digest.meaning.label_rules import LabelRule
from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.meaning.vocabulary import change_type_name, importance_name, not_analysed_name
from commit_digest.models import Analysis, ChangeType, CommitRecord, Importance
from commit_digest.search.index import SearchNames
from commit_digest.search.model import PLATFORM_GRAM, SUBSYSTEM_GRAM, SearchDocument, SearchFields
from commit_digest.search.query import SynonymGroup
from commit_digest.search.tokens import normalise
from commit_digest.site import paths
from commit_digest.site.model.commit import SiteCommit
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.rendering.describe import clipped
from commit_digest.site.rendering.escape import plain_text

_IMPORTANCE_MARKS = {Importance.HIGH: "🔴", Importance.MEDIUM: "🟡", Importance.LOW: "🟢"}
# The client shows about 200 characters from just before the first matched word; the excerpt is
# cut by the room it takes (a Chinese character as two Latin ones), as the result list has.
EXCERPT_WIDTH = 280


def _label_names(rule: LabelRule | None, label_id: str) -> str:
    return f"{label_id} {rule.name.zh} {rule.name.en}" if rule else label_id


def search_fields(
    record: CommitRecord,
    taxonomy: Taxonomy,
    *,
    analysis: Analysis | None = None,
    platforms: Sequence[str] = (),
    subsystems: Sequence[str] = (),
) -> SearchFields:
    """Title, message, author, changed paths, PR text, the whole analysis and the label names.

    ``analysis`` is the analysis as the site's language words it (default: the stored one);
    ``platforms``/``subsystems`` are the label ids the site gives the commit (the rules' labels
    when it has no analysis yet); their zh and en names are searchable too.
    """
    commit = record.commit
    # The short sha too: a reader pastes a prefix from a log or a chat (7 characters or more).
    title = [commit.title, commit.sha[:12]]
    if commit.pr_number is not None:
        title.append(f"#{commit.pr_number}")
    labels = [_label_names(taxonomy.platform(label), label) for label in platforms]
    labels.extend(_label_names(taxonomy.subsystem(label), label) for label in subsystems)
    summary: list[str] = []
    body: list[str] = [commit.body, commit.author_name, commit.author_login or ""]
    body.extend(change.path for change in commit.files)
    if commit.pull_request is not None:
        if commit.pull_request.description != commit.body:
            body.append(commit.pull_request.description)
        labels.extend(commit.pull_request.labels)
    analysis = analysis or record.analysis
    if analysis is not None and analysis.ok:
        labels.append(change_type_name(analysis.change_type, "zh"))
        labels.append(change_type_name(analysis.change_type, "en"))
        summary.extend(analysis.summary)
        summary.append(analysis.conclusion)
        for item in analysis.impact_scope:
            body.extend((item.area, item.note))
        insights = analysis.insights
        body.extend(
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
        body.extend(analysis.risks)
        for recommendation in analysis.recommendations:
            body.extend((recommendation.audience, recommendation.advice))

    def joined(parts: Sequence[str]) -> str:
        return "\n".join(part for part in parts if part)

    return SearchFields(title=joined(title), labels=joined(labels), summary=joined(summary), body=joined(body))


def search_text(
    record: CommitRecord,
    taxonomy: Taxonomy,
    *,
    analysis: Analysis | None = None,
    platforms: Sequence[str] = (),
    subsystems: Sequence[str] = (),
) -> str:
    """Everything the search covers of a commit, as one text (see ``search_fields``)."""
    return search_fields(record, taxonomy, analysis=analysis, platforms=platforms, subsystems=subsystems).text


def excerpt(record: CommitRecord, analysis: Analysis | None) -> str:
    """What a result shows under its title: the summary in the site's language, else the message."""
    text = " ".join(analysis.summary) if analysis is not None and analysis.ok else record.commit.body
    return clipped(" ".join(plain_text(text).split()), EXCERPT_WIDTH)


def search_document(item: SiteCommit, taxonomy: Taxonomy, *, several_repositories: bool = False) -> SearchDocument:
    platforms = tuple(label.id for label in item.platforms)
    subsystems = tuple(label.id for label in item.subsystems)
    return SearchDocument(
        sha12=item.sha[:12],
        title=plain_text(item.record.commit.title),
        day=item.day,
        importance="" if item.group not in {level.value for level in Importance} else item.group,
        change_type=item.change_type or "",
        platforms=platforms,
        subsystems=subsystems,
        fields=search_fields(item.record, taxonomy, analysis=item.analysis, platforms=platforms, subsystems=subsystems),
        pull_request=item.record.commit.pr_number,
        excerpt=excerpt(item.record, item.analysis),
        repository=item.repository if several_repositories else "",
    )


def search_documents(index: SiteIndex, taxonomy: Taxonomy) -> Iterator[SearchDocument]:
    """Newest first, one at a time (the text of a commit exists only while it is indexed)."""
    for day in index.days:
        for item in day.newest_first:
            yield search_document(item, taxonomy, several_repositories=index.several_repositories)


def synonym_groups(taxonomy: Taxonomy) -> tuple[SynonymGroup, ...]:
    """The taxonomy's search words, one group per label that has synonyms."""
    groups: list[SynonymGroup] = []
    for prefix, rules in ((PLATFORM_GRAM, taxonomy.platforms), (SUBSYSTEM_GRAM, taxonomy.subsystems)):
        for rule in rules:
            if rule.synonyms:
                groups.append(
                    SynonymGroup(
                        gram=prefix + rule.id,
                        same=tuple(dict.fromkeys(normalise(word) for word in rule.synonyms)),
                        narrower=tuple(dict.fromkeys(normalise(word) for word in rule.narrower)),
                    )
                )
    return tuple(groups)


def search_names(
    taxonomy: Taxonomy,
    language: str,
    *,
    directory_urls: bool = True,
    repositories: tuple[tuple[str, str], ...] = (),
) -> SearchNames:
    importance = {level.value: f"{_IMPORTANCE_MARKS[level]} {importance_name(level, language)}" for level in Importance}
    importance[""] = f"⚪ {not_analysed_name(language)}"
    return SearchNames(
        platforms=tuple((rule.id, rule.name.in_language(language)) for rule in taxonomy.platforms),
        subsystems=tuple((rule.id, rule.name.in_language(language)) for rule in taxonomy.subsystems),
        importance=importance,
        change_types={kind.value: change_type_name(kind, language) for kind in ChangeType},
        synonyms=synonym_groups(taxonomy),
        repositories=repositories,
        label_urls={
            kind: paths.url(paths.label_page(kind, "{id}"), directory_urls)
            for kind in ("platforms", "subsystems", "repositories")
        },
    )
