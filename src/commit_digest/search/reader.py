"""The client's search algorithm in Python: which commits match, the reference the browser
client is tested against (the client also ranks them; this reader lists them newest first)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from commit_digest.search.bloom import FILTER_BUCKETS, bucket_name, filter_bucket, may_hold
from commit_digest.search.index import MANIFEST
from commit_digest.search.model import IMPORTANCE_GRAM, PLATFORM_GRAM, REPOSITORY_GRAM, SUBSYSTEM_GRAM
from commit_digest.search.query import SynonymGroup, Term, parse_query
from commit_digest.search.shards import decode_shard, shard_name, shard_of

Read = Callable[[str], bytes]  # a path under search/ to its content


@dataclass(frozen=True)
class Filters:
    platforms: Sequence[str] = ()
    subsystems: Sequence[str] = ()
    importance: str = ""
    since: date | None = None  # the first day, inclusive
    until: date | None = None  # the last day, inclusive
    repository: str = ""  # owner/name, on a site of several repositories

    def grams(self) -> list[str]:
        grams = [PLATFORM_GRAM + label for label in self.platforms]
        grams.extend(SUBSYSTEM_GRAM + label for label in self.subsystems)
        if self.importance:
            grams.append(IMPORTANCE_GRAM + self.importance)
        if self.repository:
            grams.append(REPOSITORY_GRAM + self.repository)
        return grams


def synonym_groups(manifest: dict[str, object]) -> list[SynonymGroup]:
    groups = manifest.get("synonyms", [])
    assert isinstance(groups, list)
    return [SynonymGroup(group["gram"], tuple(group["same"]), tuple(group["narrower"])) for group in groups]


def day_ids(partition: dict[str, object], filters: Filters) -> range:
    """The document ids of a partition inside the filters' days (ids run newest first)."""
    first = last = None
    position = 0
    for day_text, count in partition["days"]:  # type: ignore[union-attr]
        day = date.fromisoformat(day_text)
        inside = (filters.since is None or day >= filters.since) and (filters.until is None or day <= filters.until)
        if inside:
            first = position if first is None else first
            last = position + count
        position += count
    return range(0) if first is None or last is None else range(first, last)


class _Buckets:
    """The filter bucket files, each read once: which partitions may hold a gram."""

    def __init__(self, read: Read, partitions: list[dict[str, object]]) -> None:
        self.read = read
        self.offsets: list[int] = []
        offset = 0
        for partition in partitions:
            self.offsets.append(offset)
            offset += int(partition["filter_bytes"])  # type: ignore[call-overload]
        self.blocks = [int(partition["filter_bytes"]) for partition in partitions]  # type: ignore[call-overload]
        self.files: dict[int, bytes] = {}

    def may_hold(self, index: int, gram: str) -> bool:
        bucket = filter_bucket(gram)
        if bucket not in self.files:
            self.files[bucket] = self.read(bucket_name(bucket))
        return may_hold(self.files[bucket], self.offsets[index], self.blocks[index], gram)


def _alive(terms: Sequence[Term], filter_grams: Sequence[str], holds: Callable[[str], bool]) -> list[list[int]] | None:
    """Per term, the indexes of the alternatives the partition may hold; None when a term or a
    filter cannot match there."""
    if not all(holds(gram) for gram in filter_grams):
        return None
    alive: list[list[int]] = []
    for term in terms:
        kept = [i for i, alternative in enumerate(term.alternatives) if all(holds(g) for g in alternative.grams)]
        if not kept:
            return None
        alive.append(kept)
    return alive


def _partition_matches(
    read: Read,
    partition: dict[str, object],
    terms: Sequence[Term],
    alive: list[list[int]],
    filter_grams: Sequence[str],
    ids: range,
) -> set[int]:
    shards = int(partition["shards"])  # type: ignore[call-overload]
    cache: dict[int, dict[str, list[tuple[int, int]]]] = {}

    def postings(gram: str) -> set[int]:
        shard = shard_of(gram, shards)
        if shard not in cache:
            cache[shard] = decode_shard(read(f"{partition['id']}/s/{shard_name(shard, shards)}.bin"))
        return {doc_id for doc_id, _level in cache[shard].get(gram, [])}

    matches = set(ids)
    for gram in filter_grams:
        matches &= postings(gram)
    for term, kept in zip(terms, alive, strict=True):
        either: set[int] = set()
        for i in kept:
            grams = term.alternatives[i].grams
            holding = postings(grams[0])
            for gram in grams[1:]:
                holding &= postings(gram)
            either |= holding
        matches &= either
    return matches


def search(
    read: Read,
    query: str,
    platforms: Sequence[str] = (),
    subsystems: Sequence[str] = (),
    *,
    importance: str = "",
    since: date | None = None,
    until: date | None = None,
    repository: str = "",
    use_filter: bool = True,
) -> list[str]:
    """The 12-digit shas of every match, newest first. Without text and filters nothing matches.

    ``use_filter=False`` reads every partition, to check that the filter never hides a match.
    """
    filters = Filters(platforms, subsystems, importance, since, until, repository)
    manifest = json.loads(read(MANIFEST))
    assert manifest["filter"]["buckets"] == FILTER_BUCKETS
    terms = parse_query(query, synonym_groups(manifest))
    filter_grams = filters.grams()
    if not terms and not filter_grams:
        return []
    partitions = manifest["partitions"]
    buckets = _Buckets(read, partitions)
    found: list[str] = []
    for index, partition in enumerate(partitions):
        ids = day_ids(partition, filters)
        if not ids:
            continue
        holds = (lambda gram, index=index: buckets.may_hold(index, gram)) if use_filter else (lambda gram: True)
        alive = _alive(terms, filter_grams, holds)
        if alive is None:
            continue
        matches = _partition_matches(read, partition, terms, alive, filter_grams, ids)
        chunk_size = manifest["chunk_size"]
        chunks: dict[int, list[list[object]]] = {}
        for doc_id in sorted(matches):
            chunk = doc_id // chunk_size
            if chunk not in chunks:
                chunks[chunk] = json.loads(read(f"{partition['id']}/d/{chunk}.json"))
            found.append(str(chunks[chunk][doc_id % chunk_size][0]))
    return found
