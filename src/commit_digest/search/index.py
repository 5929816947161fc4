"""Search documents to the static index files the browser client reads.

Layout under the site's ``search/`` folder (``files`` yields paths relative to it):

- ``manifest.json``: partitions newest first (id, document count, shard count, days), the chunk
  size, the commit page URL template and the names the client shows (labels, importance, types).
- ``<partition>/s/<shard>.bin``: the posting lists of the grams whose FNV-1a hash falls in that
  shard; entries ``varint(len) gram-utf8 varint(count) varint(first id) varint(gap)...``, sorted
  by gram. Document ids count from 0 = the partition's newest commit, so ascending ids are
  newest first.
- ``<partition>/d/<n>.json``: the rows of documents ``n*chunk .. (n+1)*chunk - 1``:
  ``[sha12, title, day, importance, change type, [platform ids], [subsystem ids]]``.

A partition is a quarter of the commits' local days. It is built alone, with compact arrays, so
the peak memory is one quarter's postings however long the archive grows.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

from commit_digest.search.tokens import document_grams, fnv1a

T = TypeVar("T")

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
CHUNK_SIZE = 256  # documents per metadata file: the first 20 results need one or a few of them
SHARD_TARGET_BYTES = 24 * 1024  # a shard file of about this size; the count is a power of two
MAX_SHARDS = 4096
PLATFORM_GRAM = "\x01p:"  # label grams: no text gram starts with a control character
SUBSYSTEM_GRAM = "\x01s:"


@dataclass(frozen=True)
class SearchDocument:
    sha12: str
    title: str
    day: date
    importance: str  # "high" / "medium" / "low", or "" when not analysed
    change_type: str  # a ChangeType value, or "" when not analysed
    platforms: tuple[str, ...]
    subsystems: tuple[str, ...]
    text: str  # everything searchable, fields separated by newlines

    def row(self) -> list[object]:
        return [
            self.sha12,
            self.title,
            self.day.isoformat(),
            self.importance,
            self.change_type,
            list(self.platforms),
            list(self.subsystems),
        ]

    def grams(self) -> set[str]:
        grams = document_grams(self.text)
        grams.update(PLATFORM_GRAM + label for label in self.platforms)
        grams.update(SUBSYSTEM_GRAM + label for label in self.subsystems)
        return grams


@dataclass(frozen=True)
class SearchNames:
    """What the client shows: label (id, name) pairs in taxonomy order, importance and type names."""

    platforms: tuple[tuple[str, str], ...]
    subsystems: tuple[tuple[str, str], ...]
    importance: dict[str, str]  # "" is the name of "not analysed"
    change_types: dict[str, str]


@dataclass
class PartitionInfo:
    id: str
    docs: int
    shards: int
    first_day: str
    last_day: str


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


def encode_entry(gram: str, ids: array) -> bytes:
    out = bytearray()
    raw = gram.encode("utf-8")
    encode_varint(len(raw), out)
    out += raw
    encode_varint(len(ids), out)
    previous = 0
    for doc_id in ids:
        encode_varint(doc_id - previous, out)
        previous = doc_id
    return bytes(out)


def decode_shard(data: bytes) -> dict[str, list[int]]:
    """The reference reader of a shard file (the browser client does the same)."""

    def varint(position: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = data[position]
            position += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value, position
            shift += 7

    entries: dict[str, list[int]] = {}
    position = 0
    while position < len(data):
        length, position = varint(position)
        gram = data[position : position + length].decode("utf-8")
        position += length
        count, position = varint(position)
        ids: list[int] = []
        current = 0
        for _ in range(count):
            gap, position = varint(position)
            current += gap
            ids.append(current)
        entries[gram] = ids
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


def partition_files(part_id: str, documents: list[SearchDocument]) -> Iterator[tuple[str, bytes]]:
    """The shard and chunk files of one partition; ``documents`` newest first."""
    postings: dict[str, array] = {}
    for doc_id, document in enumerate(documents):
        for gram in document.grams():
            ids = postings.get(gram)
            if ids is None:
                postings[gram] = ids = array("I")
            ids.append(doc_id)
    entries: list[tuple[int, str, bytes]] = []
    total = 0
    for gram in sorted(postings):
        entry = encode_entry(gram, postings.pop(gram))
        total += len(entry)
        entries.append((fnv1a(gram), gram, entry))
    del postings
    shards = shard_count(total)
    grouped: list[list[bytes]] = [[] for _ in range(shards)]
    for hashed, _gram, entry in entries:  # sorted by gram, so each shard is too
        grouped[hashed % shards].append(entry)
    del entries
    for shard, parts in enumerate(grouped):
        yield f"{part_id}/s/{shard_name(shard, shards)}.bin", b"".join(parts)
    for start in range(0, len(documents), CHUNK_SIZE):
        rows = [document.row() for document in documents[start : start + CHUNK_SIZE]]
        text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        yield f"{part_id}/d/{start // CHUNK_SIZE}.json", text.encode("utf-8")


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


def partition_info(part_id: str, documents: list[SearchDocument]) -> PartitionInfo:
    """What the manifest says of a partition (``shards`` is counted as its files are written)."""
    return PartitionInfo(
        id=part_id,
        docs=len(documents),
        shards=0,
        first_day=documents[-1].day.isoformat(),
        last_day=documents[0].day.isoformat(),
    )


def search_files(
    documents: Iterable[SearchDocument], names: SearchNames, *, commit_url: str
) -> Iterator[tuple[str, bytes]]:
    """Every file of the index, as (path under ``search/``, content); the manifest comes last.

    ``documents`` must come newest first (by day); ``commit_url`` is the commit page's URL
    relative to the site root with ``{sha}`` for the 12-digit sha.
    """
    partitions: list[PartitionInfo] = []
    for part_id, held in partitions_of(documents, lambda document: document.day):
        info = partition_info(part_id, held)
        for path, content in partition_files(part_id, held):
            info.shards += "/s/" in path
            yield path, content
        partitions.append(info)
    yield MANIFEST, manifest(partitions, names, commit_url=commit_url)


def manifest(partitions: list[PartitionInfo], names: SearchNames, *, commit_url: str) -> bytes:
    document = {
        "version": FORMAT_VERSION,
        "commit_url": commit_url,
        "chunk_size": CHUNK_SIZE,
        "partitions": [
            {
                "id": info.id,
                "docs": info.docs,
                "shards": info.shards,
                "first_day": info.first_day,
                "last_day": info.last_day,
            }
            for info in partitions
        ],
        "platforms": [list(pair) for pair in names.platforms],
        "subsystems": [list(pair) for pair in names.subsystems],
        "importance": names.importance,
        "change_types": names.change_types,
    }
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
