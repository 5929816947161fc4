"""The global title index: every title's tokens, pull request and sha prefix over the whole
archive, global ids in manifest order, and the partitions' filters knowing each title token."""

from __future__ import annotations

import json
from zoneinfo import ZoneInfo

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import CommitRecord
from commit_digest.search import search_documents, search_files, search_names
from commit_digest.search.bloom import bucket_name, filter_bucket, may_hold
from commit_digest.search.index import MANIFEST
from commit_digest.search.query import PULL_REQUEST_GRAM
from commit_digest.search.shards import decode_shard
from commit_digest.search.titles import SHA_TOKEN, TITLE_MARK, title_files, title_tokens, token_classes
from commit_digest.search.tokens import fnv1a, query_grams
from commit_digest.site.model.index import build_index
from tests.search.test_index import spread_over_quarters


def test_a_title_is_cut_into_whole_words_and_chinese_pairs() -> None:
    assert title_tokens("[Bugfix] Fix fused_moe kernel on H100 (#20302)") == [
        "bugfix", "fix", "fused_moe", "kernel", "on", "h100", "20302",
    ]  # fmt: skip
    assert title_tokens("修复注意力 FP8量化") == ["修复", "复注", "注意", "意力", "fp8", "量化"]
    assert title_tokens("缓 x") == ["缓", "x"]


def test_a_token_is_worth_more_in_a_short_title_or_said_twice() -> None:
    short = token_classes("[ROCm] Fix loader", 1, "abcdef012345")
    long = token_classes("[Core] Fix the scheduler preemption on many busy hosts", None, "0123456789ab")
    twice = token_classes("[ROCm] Fix the scheduler preemption on ROCm hosts", None, "0123456789ab")
    all_about = token_classes("[ROCm] Fix ROCm wheels", None, "0123456789ab")
    assert short["rocm"] == 2 and long["fix"] == 0 and twice["fix"] == 1
    assert all_about["rocm"] == 3 and twice["rocm"] == 2
    assert short[PULL_REQUEST_GRAM + "1"] == 3 and short[SHA_TOKEN + "abcdef0"] == 3
    assert PULL_REQUEST_GRAM + "0" not in long


def test_every_title_is_found_by_its_words_pr_and_sha_across_partitions(
    analysed_sample: list[CommitRecord], taxonomy: Taxonomy
) -> None:
    index = build_index(
        spread_over_quarters(analysed_sample), repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=taxonomy
    )
    documents = list(search_documents(index, taxonomy))
    files = dict(search_files(iter(documents), search_names(taxonomy, "zh"), commit_url="c/{sha}"))
    manifest = json.loads(files[MANIFEST])
    assert len(manifest["partitions"]) >= 3
    shards = manifest["title_shards"]
    assert shards >= 1 and sum(path.startswith("titles/") for path in files) == shards
    entries: dict[str, list[tuple[int, int]]] = {}
    for path, content in files.items():
        if path.startswith("titles/"):
            for token, postings in decode_shard(content).items():
                assert path == f"titles/{fnv1a(token) % shards:0{len(path) - len('titles/.bin')}x}.bin"
                entries[token] = postings
    # Global ids count the documents in manifest order: the stream's order, newest first.
    for global_id, document in enumerate(documents):
        tokens = [*title_tokens(document.title), SHA_TOKEN + document.sha12[:7]]
        if document.pull_request:
            tokens.append(PULL_REQUEST_GRAM + str(document.pull_request))
        for token in tokens:
            assert global_id in {doc for doc, _level in entries[token]}, (document.title, token)
    assert all([doc for doc, _ in postings] == sorted({doc for doc, _ in postings}) for postings in entries.values())
    # Each partition's filter knows its title tokens; a word no title holds is known nowhere.
    offsets, offset = [], 0
    for part in manifest["partitions"]:
        offsets.append(offset)
        offset += part["filter_bytes"]

    def anywhere(token: str) -> bool:
        mark = TITLE_MARK + token
        blocks = files[bucket_name(filter_bucket(mark))]
        return any(
            may_hold(blocks, offsets[i], part["filter_bytes"], mark) for i, part in enumerate(manifest["partitions"])
        )

    assert all(anywhere(token) for token in title_tokens(documents[-1].title))
    assert not anywhere("quokkaplatypus")


def test_a_title_match_holds_every_gram_of_the_words() -> None:
    # What the title index finds, the partitions find: a word's tokens in a title give its grams.
    for title, query in (("[Kernel] Add fused_moe kernel on H100", "fused_moe h100"), ("修复注意力后端", "注意力")):
        from commit_digest.search.tokens import document_grams

        assert set(query_grams(query)) <= document_grams(title)
        assert set(title_tokens(query)) <= set(title_tokens(title))


def test_merging_offsets_each_partitions_ids() -> None:
    from array import array

    from commit_digest.search.shards import encode_entry

    newest = encode_entry("fix", array("I", [0 << 2 | 1, 2 << 2 | 3]))
    older = encode_entry("fix", array("I", [1 << 2 | 0]))
    [(path, content)], shards = title_files([(newest, 3), (older, 5)])
    assert shards == 1 and path == "titles/0.bin"
    assert decode_shard(content) == {"fix": [(0, 1), (2, 3), (4, 0)]}
