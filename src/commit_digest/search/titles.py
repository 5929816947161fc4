"""The global title index: every commit's title words, pull request and sha prefix, over the
whole archive, so a known item (a pasted title, a title's distinctive words, ``#PR``, a sha
prefix) is found wherever it sits, and a topic's title matches are ranked over the whole archive
rather than over the newest partitions only.

A title is cut into *tokens*: each word run whole ("fused_moe", "h100"), each Chinese run's
character pairs (its character when it is one), and two tokens that no text makes: the pull
request's (``PULL_REQUEST_GRAM`` + number) and the sha's first ``SHA_DIGITS`` digits
(``SHA_TOKEN`` + digits). A query word is looked up by the same cut, so a document holding a
word's tokens in its title holds the word's grams too: a title match is always a match.

Files, under the site's ``search/`` folder:

- ``<partition>/titles.bin``: the partition's title tokens, in the shard entry format
  (``shards.encode_entry``), ids local to the partition, sorted by token. The level bits hold the
  token's *class* (``token_classes``): how much of the title the token is.
- ``titles/<shard>.bin``: every partition's entries merged, ids made global (the partitions'
  documents counted in manifest order, so ascending ids are newest first), hashed into shards by
  the token's FNV-1a as the partitions' shards are. A query word reads one small file.

Each partition's filter also holds ``TITLE_MARK`` + token for its title tokens, so a query whose
words no title holds reads no title shard.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import partial

from commit_digest.search.query import PULL_REQUEST_GRAM
from commit_digest.search.shards import decode_shard, encode_entry, shard_name
from commit_digest.search.tokens import CJK, fnv1a, normalise, runs

SHA_TOKEN = "\x01s"  # + the sha's first SHA_DIGITS digits
SHA_DIGITS = 7  # the shortest prefix the client takes as a sha
TITLE_MARK = "\x01t"  # + a title token: in the partitions' filters
TITLE_SHARD_BYTES = 4 * 1024  # a title shard of about this size; the count is a power of two
MAX_TITLE_SHARDS = 1024
TITLES_FILE = "titles.bin"  # in each partition's folder
# The class of a token in a title (0 to 3): its BM25 weight in the title (how often the title says
# it, against how long the title is), cut at these floors. "[ROCm] Fix ROCm wheels" is 3, a title
# of eight words saying it once is 1, a longer one 0.
BM25_K1, BM25_B, AVERAGE_TITLE = 1.2, 0.75, 8
CLASS_FLOORS = (1.0, 1.25, 1.5)


def title_tokens(title: str) -> list[str]:
    """The title's word and character-pair tokens, in order, repeats kept."""
    found: list[str] = []
    for run in runs(normalise(title)):
        text = run.text
        if run.kind == CJK and len(text) > 1:
            found.extend(text[i : i + 2] for i in range(len(text) - 1))
        else:
            found.append(text)
    return found


def token_classes(title: str, pull_request: int | None, sha12: str) -> dict[str, int]:
    """Each token of a commit's title with its class (0 to 3), and its pull request and sha
    tokens (class 3: a commit's own number is all about it)."""
    tokens = title_tokens(title)
    norm = BM25_K1 * (1 - BM25_B + BM25_B * len(tokens) / AVERAGE_TITLE)
    classes: dict[str, int] = {}
    for token, count in Counter(tokens).items():
        weight = count * (BM25_K1 + 1) / (count + norm)
        classes[token] = sum(weight >= floor for floor in CLASS_FLOORS)
    if pull_request:
        classes[PULL_REQUEST_GRAM + str(pull_request)] = 3
    classes[SHA_TOKEN + sha12[:SHA_DIGITS]] = 3
    return classes


class TitlePostings:
    """A partition's title tokens as they are indexed: token to ``local id << 2 | class``."""

    def __init__(self) -> None:
        self.postings: defaultdict[str, array] = defaultdict(partial(array, "I"))

    def add(self, doc_id: int, title: str, pull_request: int | None, sha12: str) -> None:
        for token, level in token_classes(title, pull_request, sha12).items():
            self.postings[token].append(doc_id << 2 | level)

    def tokens(self) -> list[str]:
        return list(self.postings)

    def encoded(self) -> bytes:
        """The partition's ``titles.bin``."""
        return b"".join(encode_entry(token, self.postings[token]) for token in sorted(self.postings))


def title_shard_count(total_bytes: int) -> int:
    count = 1
    while count < MAX_TITLE_SHARDS and total_bytes / count > TITLE_SHARD_BYTES:
        count *= 2
    return count


def title_shard_path(shard: int, shards: int) -> str:
    return f"titles/{shard_name(shard, shards)}.bin"


def title_files(partitions: Iterable[tuple[bytes, int]]) -> tuple[list[tuple[str, bytes]], int]:
    """The global title shards from each partition's ``titles.bin`` and document count, in
    manifest order (newest first), and how many shards there are."""
    merged: defaultdict[str, array] = defaultdict(partial(array, "I"))
    offset = 0
    for data, docs in partitions:
        for token, postings in decode_shard(data).items():
            merged[token].extend((offset + doc_id) << 2 | level for doc_id, level in postings)
        offset += docs
    entries = [(token, encode_entry(token, merged[token])) for token in sorted(merged)]
    shards = title_shard_count(sum(len(entry) for _token, entry in entries))
    grouped: list[list[bytes]] = [[] for _ in range(shards)]
    for token, entry in entries:
        grouped[fnv1a(token) % shards].append(entry)
    return [(title_shard_path(shard, shards), b"".join(parts)) for shard, parts in enumerate(grouped)], shards
