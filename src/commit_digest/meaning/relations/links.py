"""What a commit's message says of other commits, before any is looked up: the shas and pull
requests it reverts and the references it makes. A pure function of the commit, so a build
keeps it (as plain values) instead of the message, and relating needs only headers.
"""

from __future__ import annotations

from dataclasses import dataclass

from commit_digest.meaning.relations.references import SCAN_LIMIT, Reference, message_references, text_references
from commit_digest.meaning.relations.relation import PR_SUFFIX, RelationKind
from commit_digest.meaning.relations.reverts import REVERT_TITLE, revert_pulls, revert_shas
from commit_digest.models import Commit


@dataclass(frozen=True)
class CommitLinks:
    """What a commit's message says of other commits, before any is looked up: a pure function
    of the commit, so a build keeps it instead of the message."""

    revert_shas: tuple[str, ...] = ()  # "This reverts commit <sha>"
    revert_pulls: tuple[tuple[str | None, int], ...] = ()  # GitHub's "Reverts owner/repo#N"
    references: tuple[Reference, ...] = ()  # in the title, the message and the PR description

    # As plain values, for a build to keep them between runs (site.summaries).
    Parts = tuple[
        tuple[str, ...], tuple[tuple[str | None, int], ...], tuple[tuple[RelationKind, str | None, int, int], ...]
    ]

    def parts(self) -> CommitLinks.Parts:
        references = tuple((found.kind, found.repository, found.number, found.start) for found in self.references)
        return self.revert_shas, self.revert_pulls, references

    @classmethod
    def of_parts(cls, parts: CommitLinks.Parts) -> CommitLinks:
        shas, pulls, references = parts
        if not (shas or pulls or references):
            return NO_LINKS
        return cls(shas, pulls, tuple(Reference(*found) for found in references))


NO_LINKS = CommitLinks()


def commit_links(commit: Commit) -> CommitLinks:
    body = commit.body[:SCAN_LIMIT]
    shas = revert_shas(body)
    pulls = revert_pulls(body)
    references: list[Reference] = []
    if REVERT_TITLE.match(commit.title) is None:  # a revert's title quotes another commit's
        references += text_references(PR_SUFFIX.sub("", commit.title), title=True)
    references += message_references(commit.body)
    if commit.pull_request is not None:
        references += message_references(commit.pull_request.description)
    if not (shas or pulls or references):
        return NO_LINKS
    return CommitLinks(shas, pulls, tuple(references))
