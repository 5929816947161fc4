"""The client's search algorithm in Python: the reference the browser client is tested against."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from commit_digest.search.index import MANIFEST, PLATFORM_GRAM, SUBSYSTEM_GRAM, decode_shard, shard_name, shard_of
from commit_digest.search.tokens import query_grams

Read = Callable[[str], bytes]  # a path under search/ to its content


def query_and_filters(query: str, platforms: Sequence[str] = (), subsystems: Sequence[str] = ()) -> list[str]:
    return [
        *query_grams(query),
        *(PLATFORM_GRAM + label for label in platforms),
        *(SUBSYSTEM_GRAM + label for label in subsystems),
    ]


def search(read: Read, query: str, platforms: Sequence[str] = (), subsystems: Sequence[str] = ()) -> list[str]:
    """The 12-digit shas of every match, newest first. Without text and filters nothing matches."""
    grams = query_and_filters(query, platforms, subsystems)
    if not grams:
        return []
    manifest = json.loads(read(MANIFEST))
    found: list[str] = []
    for partition in manifest["partitions"]:
        shards = partition["shards"]
        cache: dict[int, dict[str, list[int]]] = {}
        lists: list[list[int]] = []
        for gram in grams:
            shard = shard_of(gram, shards)
            if shard not in cache:
                cache[shard] = decode_shard(read(f"{partition['id']}/s/{shard_name(shard, shards)}.bin"))
            lists.append(cache[shard].get(gram, []))
        lists.sort(key=len)
        matches = set(lists[0])
        for ids in lists[1:]:
            matches.intersection_update(ids)
        chunk_size = manifest["chunk_size"]
        chunks: dict[int, list[list[object]]] = {}
        for doc_id in sorted(matches):
            chunk = doc_id // chunk_size
            if chunk not in chunks:
                chunks[chunk] = json.loads(read(f"{partition['id']}/d/{chunk}.json"))
            found.append(str(chunks[chunk][doc_id % chunk_size][0]))
    return found
