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
  ``[sha12, title, day, importance, change type, [platforms], [subsystems], pr, excerpt,
  repository]`` (the repository is "" on a site of one).
- ``<partition>/filter.bin``: the partition's Bloom filter, in ``FILTER_BUCKETS`` blocks of
  ``filter_bytes`` each (a gram's block is its hash modulo the bucket count).
- ``filter/<bucket>.bin``: block ``bucket`` of every partition, in manifest order. A query reads
  one small file per gram and learns which partitions may hold it: a partition lacking a gram
  every alternative needs is never downloaded, so a query with no match costs a few KB.

A partition is a quarter of the commits' local days. It is built alone, with compact arrays, so
the peak memory is one quarter's postings however long the archive grows.
"""

from __future__ import annotations

import json
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache, partial
from itertools import chain, islice, repeat
from operator import and_, sub
from typing import TypeVar

from commit_digest.search.query import PULL_REQUEST_GRAM, SynonymGroup
from commit_digest.search.tokens import RunGrams, RunKey, fnv1a, grams_of, run_keys

T = TypeVar("T")

MANIFEST = "manifest.json"
FORMAT_VERSION = 2
# Documents per row file. Ranked results are spread over a partition, so a page of them reads
# about one file each: small files keep that page near 20 x 16 rows.
CHUNK_SIZE = 16
SHARD_TARGET_BYTES = 24 * 1024  # a shard file of about this size; the count is a power of two
MAX_SHARDS = 4096
PLATFORM_GRAM = "\x01p:"  # label grams: no text gram starts with a control character
SUBSYSTEM_GRAM = "\x01s:"
IMPORTANCE_GRAM = "\x01i:"
REPOSITORY_GRAM = "\x01r:"  # only on a site of several repositories
# Fields, best first: a gram's level in a document is the best field holding it.
TITLE, LABELS, SUMMARY, BODY = 3, 2, 1, 0
FILTER_BUCKETS = 256
FILTER_HASHES = 6
FILTER_BITS_PER_GRAM = 10  # about 1% false positives with 6 hashes
# Documents made at a time while a partition is indexed (see _in_chunks).
INDEX_CHUNK = 64
FILTER_SEED = "\x02"  # the second hash of a gram is FNV-1a of this + the gram


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


def encode_varint(value: int, out: bytearray) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def encode_entry(gram: str, postings: array) -> bytes:
    """``postings``: ``doc_id << 2 | level`` in ascending id order."""
    raw = gram.encode("utf-8")
    head = bytearray()
    encode_varint(len(raw), head)
    head += raw
    encode_varint(len(postings), head)
    return bytes(head) + encode_postings(postings)


def encode_postings(postings: array) -> bytes:
    """``varint(gap << 2 | level)`` of each posting (``doc_id << 2 | level``, ascending ids).

    A posting less the previous one's id bits is that value, so C-level maps give the values
    with no Python code per posting. A common gram's values are mostly below 128, one byte each
    (bytes() takes them whole); the others take their bytes from a table."""
    try:
        encoded = bytes(_gap_values(postings))
        if max(encoded, default=0) < 0x80:
            return encoded
    except ValueError:  # a value of 256 or more
        pass
    table = _short_varints()
    return b"".join([table[value] if value < len(table) else _varint(value) for value in _gap_values(postings)])


def _gap_values(postings: array) -> Iterator[int]:
    """``gap << 2 | level`` of each posting: the posting less the previous posting's id bits."""
    return map(sub, postings, chain((0,), map(and_, postings, repeat(~3))))


def _varint(value: int) -> bytes:
    out = bytearray()
    encode_varint(value, out)
    return bytes(out)


@cache
def _short_varints() -> tuple[bytes, ...]:
    """The varints of one and two bytes (gaps below 4096 documents), built once."""
    return tuple([bytes((value,)) for value in range(0x80)] + [_varint(value) for value in range(0x80, 1 << 14)])


def decode_shard(data: bytes) -> dict[str, list[tuple[int, int]]]:
    """The reference reader of a shard file: gram to (document id, level) pairs (the browser
    client does the same)."""

    def varint(position: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = data[position]
            position += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value, position
            shift += 7

    entries: dict[str, list[tuple[int, int]]] = {}
    position = 0
    while position < len(data):
        length, position = varint(position)
        gram = data[position : position + length].decode("utf-8")
        position += length
        count, position = varint(position)
        postings: list[tuple[int, int]] = []
        current = 0
        for _ in range(count):
            value, position = varint(position)
            current += value >> 2
            postings.append((current, value & 3))
        entries[gram] = postings
    return entries


def shard_count(total_bytes: int) -> int:
    count = 1
    while count < MAX_SHARDS and total_bytes / count > SHARD_TARGET_BYTES:
        count *= 2
    return count


def shard_name(shard: int, shards: int) -> str:
    width = ((shards - 1).bit_length() + 3) // 4 or 1
    return f"{shard:0{width}x}"


def shard_of(gram: str, shards: int) -> int:
    return fnv1a(gram) % shards


def filter_block_bytes(grams: int) -> int:
    return max(1, -(-grams * FILTER_BITS_PER_GRAM // (FILTER_BUCKETS * 8)))


def filter_bucket(gram: str) -> int:
    """The filter block (and bucket file) a gram is in."""
    return fnv1a(gram) % FILTER_BUCKETS


def filter_bits(gram: str, block_bits: int, first: int | None = None) -> tuple[int, list[int]]:
    """The bucket of a gram and its bit positions in a block of ``block_bits`` (``first``: the
    gram's ``fnv1a`` when known)."""
    first = fnv1a(gram) if first is None else first
    second = fnv1a(FILTER_SEED + gram)
    step = (first >> 8) | 1
    return first % FILTER_BUCKETS, [(second + i * step) % block_bits for i in range(FILTER_HASHES)]


def partition_filter(grams: Iterable[str], count: int, hashes: Mapping[str, int] | None = None) -> tuple[bytes, int]:
    """The Bloom filter of a partition's ``count`` distinct grams, and its block size
    (``hashes``: each gram's ``fnv1a``, when known)."""
    block = filter_block_bytes(count)
    bits = bytearray(block * FILTER_BUCKETS)
    for gram in grams:
        bucket, positions = filter_bits(gram, block * 8, hashes[gram] if hashes is not None else None)
        for position in positions:
            bits[bucket * block + (position >> 3)] |= 1 << (position & 7)
    return bytes(bits), block


def may_hold(blocks: bytes, offset: int, block: int, gram: str) -> bool:
    """Whether the filter block of a partition (at ``offset`` in its bucket file) may hold ``gram``."""
    _bucket, positions = filter_bits(gram, block * 8)
    return all(blocks[offset + (position >> 3)] >> (position & 7) & 1 for position in positions)


def bucket_name(bucket: int) -> str:
    return f"filter/{bucket:02x}.bin"


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


def index_documents(documents: Iterable[SearchDocument]) -> IndexedPartition:
    """Each gram's postings in compact arrays, each document's row and the documents per day,
    from a newest-first stream: a document's text is held only while it is cut into grams, so
    the memory is the partition's postings, not its text."""
    postings: defaultdict[str, array] = defaultdict(partial(array, "I"))
    known: RunGrams = {}  # the partition's runs, each cut into grams once
    rows: list[list[object]] = []
    days: list[list[object]] = []
    for doc_id, document in enumerate(_in_chunks(documents)):
        for level, grams in document.grams_by_level(known):
            posting = doc_id << 2 | level
            for gram in grams:
                postings[gram].append(posting)
        rows.append(document.row())
        day = document.day.isoformat()
        if days and days[-1][0] == day:
            days[-1][1] = int(days[-1][1]) + 1  # type: ignore[call-overload]
        else:
            days.append([day, 1])
    return IndexedPartition(postings, rows, days)


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
    yield f"{part_id}/filter.bin", partition_filter(postings, len(postings), hashes)[0]
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
        text = json.dumps(rows[start : start + CHUNK_SIZE], ensure_ascii=False, separators=(",", ":"))
        yield f"{part_id}/d/{start // CHUNK_SIZE}.json", text.encode("utf-8")


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
    for part_id, held in partitions_of(documents, lambda document: document.day):
        files, info = build_partition(part_id, held)
        filters.extend((content, info.filter_bytes) for path, content in files if path.endswith("/filter.bin"))
        yield from files
        partitions.append(info)
    yield from bucket_files(filters)
    yield MANIFEST, manifest(partitions, names, commit_url=commit_url)


def manifest(partitions: list[PartitionInfo], names: SearchNames, *, commit_url: str) -> bytes:
    document = {
        "version": FORMAT_VERSION,
        "commit_url": commit_url,
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
