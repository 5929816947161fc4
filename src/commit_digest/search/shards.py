"""The shard files of a partition: each gram's posting list as varints, which shard a gram's
entry goes to, how many shards a partition gets, and the reference decoder of a shard file.

An entry is ``varint(len) gram-utf8 varint(count) varint(gap << 2 | level)...``; the browser
client decodes the same bytes. Kept apart from the partition builder so the reader and the tests
use the format without the indexing around it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from functools import cache
from itertools import chain, repeat
from operator import and_, sub

from commit_digest.search.tokens import fnv1a

SHARD_TARGET_BYTES = 24 * 1024  # a shard file of about this size; the count is a power of two
MAX_SHARDS = 4096


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
