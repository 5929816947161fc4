"""The Bloom filters that let a query skip partitions: a partition's filter in ``FILTER_BUCKETS``
blocks, the block and bit positions of a gram, and the bucket file names a query reads.

The builder sets the bits and the reader (as the browser client) tests them, so both take the
hashing from here; the client gets the same constants from the manifest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from commit_digest.search.tokens import fnv1a

FILTER_BUCKETS = 256
FILTER_HASHES = 6
FILTER_BITS_PER_GRAM = 10  # about 1% false positives with 6 hashes
FILTER_SEED = "\x02"  # the second hash of a gram is FNV-1a of this + the gram


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
