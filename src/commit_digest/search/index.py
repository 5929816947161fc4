"""Search documents to the static index files the browser client reads.

Layout under the site's ``search/`` folder (``files`` yields paths relative to it):

- ``manifest.json``: partitions newest first (id, document count, shard count, the documents
  per day, the size of its filter blocks), the chunk size, the commit page URL template, the
  names the client shows (labels, importance, types) and the taxonomy's synonym groups.
- ``<partition>/s/<shard>.bin``: the posting lists of the grams whose FNV-1a hash falls in that
  shard; entries ``varint(len) gram-utf8 varint(count) varint(gap << 2 | level)...``, sorted by
  gram, where ``level`` is the best field holding the gram (3 title, 2 labels, 1 summary,
  0 body) and the gaps are between document ids. Ids count from 0 = the partition's newest
  commit, so ascending ids are newest first.
- ``<partition>/d/<n>.json``: the rows of documents ``n*chunk .. (n+1)*chunk - 1``:
  ``[sha12, title, day, importance, change type, [platforms], [subsystems], pr, "",
  repository]`` (the repository is "" on a site of one). The excerpt's place is empty: ranking
  and the header box need only these, a row is a quarter of its size without it.
- ``<partition>/e/<n>.json``: the excerpts of the same documents, a list of strings: the search
  page reads them for the results it shows.
- ``<partition>/titles.bin`` and ``titles/<shard>.bin``: the title index (``titles``).
- ``<partition>/filter.bin``: the partition's Bloom filter, in ``FILTER_BUCKETS`` blocks of
  ``filter_bytes`` each (a gram's block is its hash modulo the bucket count).
- ``filter/<bucket>.bin``: block ``bucket`` of every partition, in manifest order. A query reads
  one small file per gram and learns which partitions may hold it: a partition lacking a gram
  every alternative needs is never downloaded, so a query with no match costs a few KB. The
  filters hold the partition's title tokens too (``titles.TITLE_MARK`` + token).

A partition is a quarter of the commits' local days. It is built alone, with compact arrays, so
the peak memory is one quarter's postings however long the archive grows.

This module cuts the documents into partitions, indexes each and writes the files above; the
document (``model``), the shard format (``shards``) and the Bloom filters (``bloom``) are
defined apart, as the reader needs them without the building.
"""

from __future__ import annotations

import json
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import partial
from itertools import islice
from typing import TypeVar

from commit_digest.search.bloom import FILTER_BUCKETS, FILTER_HASHES, FILTER_SEED, bucket_name, partition_filter
from commit_digest.search.model import SearchDocument
from commit_digest.search.query import SynonymGroup
from commit_digest.search.shards import encode_entry, shard_count, shard_name
from commit_digest.search.titles import TITLE_MARK, TITLES_FILE, TitlePostings, title_files
from commit_digest.search.tokens import RunGrams, fnv1a

T = TypeVar("T")

MANIFEST = "manifest.json"
FORMAT_VERSION = 3
# Documents per row file. Ranked results are spread over a partition, so a page of them reads
# about one file each: small files keep that page near 20 x 16 rows.
CHUNK_SIZE = 16
# Documents made at a time while a partition is indexed (see _in_chunks).
INDEX_CHUNK = 64


@dataclass(frozen=True)
class SearchNames:
    """What the client shows: label (id, name) pairs in taxonomy order, importance and type names."""

    platforms: tuple[tuple[str, str], ...]
    subsystems: tuple[tuple[str, str], ...]
    importance: dict[str, str]  # "" is the name of "not analysed"
    change_types: dict[str, str]
    synonyms: tuple[SynonymGroup, ...] = ()
    repositories: tuple[tuple[str, str], ...] = ()  # (owner/name, title) on a site of several
    label_urls: dict[str, str] | None = None  # "platforms"/"subsystems" -> URL with {id}, from the site root


@dataclass
class PartitionInfo:
    id: str
    docs: int
    shards: int
    first_day: str
    last_day: str
    days: list[list[object]] | None = None  # [[day, documents], ...] newest first
    filter_bytes: int = 0  # the size of each of the partition's FILTER_BUCKETS filter blocks


def quarter(day: date) -> str:
    return f"{day.year}q{(day.month - 1) // 3 + 1}"


def partition_id(day: date, newest: date) -> str:
    """The index partition of a day: one per closed quarter, one per month of the newest
    quarter — so a night's new commits re-index a month, not a whole quarter (the months
    merge into their quarter once the next quarter begins)."""
    if quarter(day) == quarter(newest):
        return f"{quarter(day)}m{day.month:02d}"  # sorts with the quarters: 2026q2m05 > 2026q1
    return quarter(day)


def bucket_files(filters: list[tuple[bytes, int]]) -> Iterator[tuple[str, bytes]]:
    """The per-bucket files from each partition's (filter, block size), in manifest order."""
    for bucket in range(FILTER_BUCKETS):
        yield bucket_name(bucket), b"".join(data[bucket * block : (bucket + 1) * block] for data, block in filters)


@dataclass
class IndexedPartition:
    """A partition's documents reduced to what its files hold: postings, rows and day counts."""

    postings: dict[str, array]  # gram -> ``doc_id << 2 | level``, ascending ids
    rows: list[list[object]]  # SearchDocument.row() of each document, newest first
    days: list[list[object]]  # [[day, documents], ...] newest first
    titles: TitlePostings


def index_documents(documents: Iterable[SearchDocument]) -> IndexedPartition:
    """Each gram's postings in compact arrays, each document's row and the documents per day,
    from a newest-first stream: a document's text is held only while it is cut into grams, so
    the memory is the partition's postings, not its text."""
    postings: defaultdict[str, array] = defaultdict(partial(array, "I"))
    known: RunGrams = {}  # the partition's runs, each cut into grams once
    rows: list[list[object]] = []
    days: list[list[object]] = []
    titles = TitlePostings()
    for doc_id, document in enumerate(_in_chunks(documents)):
        for level, grams in document.grams_by_level(known):
            posting = doc_id << 2 | level
            for gram in grams:
                postings[gram].append(posting)
        rows.append(document.row())
        titles.add(doc_id, document.title, document.pull_request, document.sha12)
        day = document.day.isoformat()
        if days and days[-1][0] == day:
            days[-1][1] = int(days[-1][1]) + 1  # type: ignore[call-overload]
        else:
            days.append([day, 1])
    return IndexedPartition(postings, rows, days, titles)


def _in_chunks(documents: Iterable[SearchDocument]) -> Iterator[SearchDocument]:
    """The stream, made INDEX_CHUNK documents at a time: making a document (reading its record)
    between every two documents' postings costs a fifth more time (the caches are cold)."""
    stream = iter(documents)
    while chunk := list(islice(stream, INDEX_CHUNK)):
        yield from chunk


def partition_files(part_id: str, indexed: IndexedPartition) -> Iterator[tuple[str, bytes]]:
    """The shard, chunk and filter files of one partition (its postings are consumed)."""
    postings = indexed.postings
    hashes = {gram: fnv1a(gram) for gram in postings}  # the filter and the shards both need them
    # The title marks join the filter only: no shard holds them.
    hashes.update((mark, fnv1a(mark)) for mark in (TITLE_MARK + token for token in indexed.titles.tokens()))
    yield f"{part_id}/filter.bin", partition_filter(hashes, len(hashes), hashes)[0]
    yield f"{part_id}/{TITLES_FILE}", indexed.titles.encoded()
    entries: list[tuple[int, bytes]] = []
    total = 0
    for gram in sorted(postings):
        entry = encode_entry(gram, postings.pop(gram))
        total += len(entry)
        entries.append((hashes[gram], entry))
    del postings, hashes
    shards = shard_count(total)
    grouped: list[list[bytes]] = [[] for _ in range(shards)]
    for hashed, entry in entries:  # sorted by gram, so each shard is too
        grouped[hashed % shards].append(entry)
    del entries
    for shard, parts in enumerate(grouped):
        yield f"{part_id}/s/{shard_name(shard, shards)}.bin", b"".join(parts)
    rows = indexed.rows
    for start in range(0, len(rows), CHUNK_SIZE):
        chunk = rows[start : start + CHUNK_SIZE]
        excerpts = [row[8] for row in chunk]
        heads = [[*row[:8], "", *row[9:]] for row in chunk]
        yield f"{part_id}/d/{start // CHUNK_SIZE}.json", _json(heads)
        yield f"{part_id}/e/{start // CHUNK_SIZE}.json", _json(excerpts)


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_partition(part_id: str, documents: Iterable[SearchDocument]) -> tuple[list[tuple[str, bytes]], PartitionInfo]:
    """One partition's files (paths under ``search/``) and its manifest entry, from its documents,
    newest first (a stream: each is dropped once indexed). A pure function of its arguments,
    sharing no state with other partitions: a build may run partitions in worker processes and
    write what they return."""
    indexed = index_documents(documents)
    if not indexed.rows:
        raise ValueError(f"search partition {part_id} has no documents")
    info = PartitionInfo(
        id=part_id,
        docs=len(indexed.rows),
        shards=0,
        first_day=str(indexed.days[-1][0]),
        last_day=str(indexed.days[0][0]),
        days=indexed.days,
    )
    files = list(partition_files(part_id, indexed))
    for relative, content in files:
        note_file(info, relative, content)
    return files, info


def partitions_of(items: Iterable[T], day_of: Callable[[T], date]) -> Iterator[tuple[str, list[T]]]:
    """Consecutive partitions of a newest-first stream (documents, or the site's commits);
    only one partition is held at a time."""
    current: str | None = None
    held: list[T] = []
    previous_day: date | None = None
    newest: date | None = None
    for item in items:
        day = day_of(item)
        if previous_day is not None and day > previous_day:
            raise ValueError(f"search documents must come newest first: {day} after {previous_day}")
        previous_day = day
        newest = newest or day
        part = partition_id(day, newest)
        if part != current:
            if current is not None:
                yield current, held
            current, held = part, []
        held.append(item)
    if current is not None:
        yield current, held


def note_file(info: PartitionInfo, relative: str, content: bytes) -> None:
    """Counts a written partition file into its manifest entry."""
    if "/s/" in relative:
        info.shards += 1
    elif relative.endswith("/filter.bin"):
        info.filter_bytes = len(content) // FILTER_BUCKETS


def search_files(
    documents: Iterable[SearchDocument], names: SearchNames, *, commit_url: str
) -> Iterator[tuple[str, bytes]]:
    """Every file of the index, as (path under ``search/``, content); the manifest comes last.

    ``documents`` must come newest first (by day); ``commit_url`` is the commit page's URL
    relative to the site root with ``{sha}`` for the 12-digit sha.
    """
    partitions: list[PartitionInfo] = []
    filters: list[tuple[bytes, int]] = []
    titles: list[tuple[bytes, int]] = []
    for part_id, held in partitions_of(documents, lambda document: document.day):
        files, info = build_partition(part_id, held)
        filters.extend((content, info.filter_bytes) for path, content in files if path.endswith("/filter.bin"))
        titles.extend((content, info.docs) for path, content in files if path.endswith("/" + TITLES_FILE))
        yield from files
        partitions.append(info)
    yield from bucket_files(filters)
    shards, title_shards = title_files(titles)
    yield from shards
    yield MANIFEST, manifest(partitions, names, commit_url=commit_url, title_shards=title_shards)


def manifest(partitions: list[PartitionInfo], names: SearchNames, *, commit_url: str, title_shards: int) -> bytes:
    document = {
        "version": FORMAT_VERSION,
        "commit_url": commit_url,
        "title_shards": title_shards,
        "label_urls": names.label_urls or {},
        "chunk_size": CHUNK_SIZE,
        "filter": {"buckets": FILTER_BUCKETS, "hashes": FILTER_HASHES, "seed": FILTER_SEED},
        "partitions": [
            {
                "id": info.id,
                "docs": info.docs,
                "shards": info.shards,
                "first_day": info.first_day,
                "last_day": info.last_day,
                "days": info.days or [],
                "filter_bytes": info.filter_bytes,
            }
            for info in partitions
        ],
        "platforms": [list(pair) for pair in names.platforms],
        "subsystems": [list(pair) for pair in names.subsystems],
        "repositories": [list(pair) for pair in names.repositories],
        "importance": names.importance,
        "change_types": names.change_types,
        "synonyms": [
            {"gram": group.gram, "same": list(group.same), "narrower": list(group.narrower)} for group in names.synonyms
        ],
    }
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
