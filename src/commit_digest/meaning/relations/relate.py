"""``relate``: the relations between the store's commits, both ways, and their series.

Each commit's own relations (what it reverts, fixes, follows up or mentions) are resolved
against the whole store and given back to the other commit as the inverse (reverted by, fixed
by, ...); ``Relations`` answers for one commit at a time.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from commit_digest.meaning.relations.commit_index import CommitIndex
from commit_digest.meaning.relations.links import CommitLinks, commit_links
from commit_digest.meaning.relations.relation import CommitHeader, CommitKey, Relation, RelationKind
from commit_digest.meaning.relations.reverts import reverted, still_reverted
from commit_digest.meaning.relations.series import Series, store_series
from commit_digest.models import Commit

_INVERSE = {
    RelationKind.REVERTS: RelationKind.REVERTED_BY,
    RelationKind.FIXES: RelationKind.FIXED_BY,
    RelationKind.FOLLOWS_UP: RelationKind.FOLLOWED_UP_BY,
    RelationKind.MENTIONS: RelationKind.MENTIONED_BY,
}
_ORDER = {kind: rank for rank, kind in enumerate(RelationKind)}
# One relation per referred-to commit or reference: the strongest of what the text says.
_STRENGTH = {RelationKind.FIXES: 0, RelationKind.FOLLOWS_UP: 1, RelationKind.MENTIONS: 2}


class Relations:
    """What ``relate`` found; ask it about one commit or list the series."""

    def __init__(
        self,
        relations: dict[CommitKey, tuple[Relation, ...]],
        series: tuple[Series, ...],
        reverted: frozenset[CommitKey],
    ) -> None:
        self._relations = relations
        self._series = series
        self._series_of = {key: found for found in series for _, key in found.parts}
        self._reverted = reverted

    def of(self, key: CommitKey) -> tuple[Relation, ...]:
        """The commit's relations: reverts and reverted-by first, then fixes, follow-ups and
        mentions (each kind before its inverse), each kind oldest first, unresolved last."""
        return self._relations.get(key, ())

    def series_of(self, key: CommitKey) -> Series | None:
        return self._series_of.get(key)

    def reverted(self, key: CommitKey) -> bool:
        """Whether a revert of the commit stands: it was reverted and not restored since (by a
        revert of that revert)."""
        return key in self._reverted

    def revert_chain(self, key: CommitKey) -> tuple[Relation, ...]:
        """The revert of the commit, the revert of that revert, and so on (each the newest, as a
        reverted-by relation): "reverted by B on …, restored by C on …"."""
        chain: list[Relation] = []
        seen = {key}
        while True:
            reverts = [found for found in self.of(key) if found.kind is RelationKind.REVERTED_BY]
            if not reverts or reverts[-1].other in seen or reverts[-1].other is None:
                return tuple(chain)
            chain.append(reverts[-1])
            key = reverts[-1].other
            seen.add(key)

    @property
    def series(self) -> tuple[Series, ...]:
        """Every series, newest (by its last part's landing) first."""
        return self._series


def _forward(
    commit: CommitHeader, links: CommitLinks, index: CommitIndex
) -> list[tuple[RelationKind, CommitKey | None, tuple[str, int] | None]]:
    """The commit's own relations: (kind, other commit or None, reference when unresolved)."""
    own = (commit.repository, commit.sha)
    found: list[tuple[RelationKind, CommitKey | None, tuple[str, int] | None]] = [
        (RelationKind.REVERTS, key, reference)
        for key, reference in reverted(commit, links.revert_shas, links.revert_pulls, index)
    ]
    taken: set[object] = {
        key or (reference[0].lower(), reference[1]) for _, key, reference in found if key or reference
    }
    strongest: dict[object, tuple[RelationKind, CommitKey | None, tuple[str, int] | None]] = {}
    for reference in links.references:
        repository = index.repository(reference.repository, commit.repository)
        if (repository, reference.number) == (commit.repository, commit.pr_number):
            continue
        key = index.pull(repository, reference.number)
        target: object = key or (repository.lower(), reference.number)
        if key == own or target in taken:
            continue
        if target not in strongest or _STRENGTH[reference.kind] < _STRENGTH[strongest[target][0]]:
            strongest[target] = (reference.kind, key, None if key else (repository, reference.number))
    return found + list(strongest.values())


def _pull_of(commit: CommitHeader) -> tuple[str, int] | None:
    return (commit.repository, commit.pr_number) if commit.pr_number is not None else None


def _sort_key(relation: Relation) -> tuple[object, ...]:
    return (
        _ORDER[relation.kind],
        relation.at is None,
        relation.at.timestamp() if relation.at else 0.0,
        relation.other or ("", ""),
        relation.reference or ("", 0),
    )


def relate(commits: Iterable[CommitHeader], links: Callable[[CommitKey], CommitLinks] | None = None) -> Relations:
    """The relations between ``commits`` (the whole store), both ways, and their series.

    ``commits`` may be headers (what listings keep of a commit) when ``links`` gives what each
    one's message says (``commit_links``, kept by the caller); else they are whole commits."""
    by_key: dict[CommitKey, CommitHeader] = {}
    for commit in commits:
        by_key.setdefault((commit.repository, commit.sha), commit)
    index = CommitIndex(by_key)
    found: dict[CommitKey, dict[tuple[RelationKind, object], Relation]] = defaultdict(dict)
    reverted_by: dict[CommitKey, list[CommitKey]] = defaultdict(list)
    for key, commit in by_key.items():
        if links is not None:
            said = links(key)
        else:
            assert isinstance(commit, Commit), "relate() needs whole commits or their links"
            said = commit_links(commit)
        for kind, other, reference in _forward(commit, said, index):
            if other is None:
                found[key].setdefault((kind, reference), Relation(kind, None, reference))
                continue
            target = by_key[other]
            found[key].setdefault((kind, other), Relation(kind, other, _pull_of(target), target.committed_at))
            inverse = _INVERSE[kind]
            found[other].setdefault((inverse, key), Relation(inverse, key, _pull_of(commit), commit.committed_at))
            if kind is RelationKind.REVERTS:
                reverted_by[other].append(key)
    relations = {key: tuple(sorted(each.values(), key=_sort_key)) for key, each in found.items()}
    return Relations(relations, store_series(by_key), still_reverted(reverted_by))
