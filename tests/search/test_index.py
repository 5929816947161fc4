"""Index round trip: shards built from the sample, queried with the reference reader, find every
commit whose searchable text holds the term, and filters narrow by label."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.models import CommitRecord, Importance
from commit_digest.search import search_documents, search_files, search_names
from commit_digest.search.documents import EXCERPT_WIDTH, excerpt
from commit_digest.search.index import CHUNK_SIZE, MANIFEST, build_partition, partitions_of, quarter
from commit_digest.search.query import PULL_REQUEST_GRAM
from commit_digest.search.reader import search
from commit_digest.search.shards import decode_shard, encode_entry, shard_count
from commit_digest.search.tokens import normalise
from commit_digest.site.model.index import build_index
from commit_digest.site.rendering.describe import width
from tests.site.factories import make_commit, ok_analysis

TERMS = ("缓存", "量化", "内存", "修复", "注意力", "FP8", "fused_moe", "MI300", "rocm", "v1", "tp", "ci", "MoE 内核")


def contains(text: str, term: str) -> bool:
    """Substring, except that a term that is one short word (under three letters) is a whole word."""
    if re.fullmatch(r"[a-z0-9_]{1,2}", term):
        return re.search(rf"(?<![a-z0-9_]){term}(?![a-z0-9_])", text) is not None
    return term in text


@pytest.fixture(scope="module")
def built(analysed_sample: list[CommitRecord], taxonomy: Taxonomy) -> tuple[dict[str, bytes], dict[str, str]]:
    index = build_index(analysed_sample, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    documents = list(search_documents(index, taxonomy))
    files = dict(search_files(iter(documents), search_names(taxonomy, "zh"), commit_url="commits/{sha}/"))
    return files, {document.sha12: normalise(document.text) for document in documents}


def test_every_substring_match_is_found_newest_first(built) -> None:
    files, texts = built
    for term in TERMS:
        found = search(files.__getitem__, term)
        parts = [normalise(part) for part in term.split()]
        expected = {sha for sha, text in texts.items() if all(contains(text, part) for part in parts)}
        assert expected <= set(found), term
        assert len(found) == len(set(found))
        if len(normalise(term)) >= 3:  # longer terms: few false positives
            assert len(set(found) - expected) <= max(2, len(expected) // 5), term
    assert search(files.__getitem__, "缓存")
    assert search(files.__getitem__, "fused_moe")


def test_filters_narrow_by_label(built, analysed_sample: list[CommitRecord]) -> None:
    files, _texts = built
    everything = search(files.__getitem__, "修复")
    rocm = search(files.__getitem__, "修复", platforms=["rocm"])
    assert rocm and set(rocm) < set(everything)
    chunk_rows = {row[0]: row for path, content in files.items() if "/d/" in path for row in json.loads(content)}
    assert all("rocm" in chunk_rows[sha][5] for sha in rocm)
    only_filter = search(files.__getitem__, "", platforms=["rocm"])
    assert set(rocm) <= set(only_filter)
    assert search(files.__getitem__, "") == []


def test_manifest_and_layout(built) -> None:
    files, texts = built
    manifest = json.loads(files[MANIFEST])
    # The demo's days all fall in the newest quarter, which is partitioned by month.
    assert [part["id"] for part in manifest["partitions"]] == ["2026q1m01"]
    [part] = manifest["partitions"]
    assert part["docs"] == len(texts)
    assert sum(1 for path in files if path.startswith("2026q1m01/s/")) == part["shards"]
    assert ["cpu", "CPU"] in manifest["platforms"]
    assert manifest["importance"]["high"] == "🔴 高"
    assert list(files)[-1] == MANIFEST


def spread_over_quarters(sample: list[CommitRecord]) -> list[CommitRecord]:
    """The sample with two commits in three moved back 100 or 200 days."""
    from datetime import timedelta

    def moved_back(record: CommitRecord, days: int) -> CommitRecord:
        commit = record.commit.model_copy(update={"committed_at": record.commit.committed_at - timedelta(days=days)})
        return record.model_copy(update={"commit": commit})

    return [moved_back(record, 100 * (i % 3)) for i, record in enumerate(sample)]


def test_partitions_by_quarter_and_newest_months_newest_first(
    analysed_sample: list[CommitRecord], taxonomy: Taxonomy
) -> None:
    moved = spread_over_quarters(analysed_sample)
    index = build_index(moved, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    files = dict(search_files(search_documents(index, taxonomy), search_names(taxonomy, "en"), commit_url="c/{sha}"))
    manifest = json.loads(files[MANIFEST])
    ids = [part["id"] for part in manifest["partitions"]]
    assert ids == sorted(ids, reverse=True) and len(ids) >= 3
    found = search(files.__getitem__, "fix")
    days = {row[0]: row[2] for path, content in files.items() if "/d/" in path for row in json.loads(content)}
    assert [days[sha] for sha in found] == sorted((days[sha] for sha in found), reverse=True)
    newest = max(record.commit.committed_at for record in moved).date()
    # The newest quarter is split by month; older quarters are one partition each.
    assert ids[0] == f"{quarter(newest)}m{newest.month:02d}"
    assert all(("m" in part) == part.startswith(quarter(newest)) for part in ids)


def test_a_partition_is_built_from_a_stream_of_its_documents(
    analysed_sample: list[CommitRecord], taxonomy: Taxonomy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a worker process builds: a partition from a one-shot stream of its documents, made a
    few at a time, holding each document once, in order, under its own id."""
    from commit_digest.search import index as index_module

    monkeypatch.setattr(index_module, "INDEX_CHUNK", 3)  # several chunks, the last one short
    index = build_index(
        spread_over_quarters(analysed_sample), repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=taxonomy
    )
    documents = list(search_documents(index, taxonomy))
    part_id, held = max(partitions_of(documents, lambda document: document.day), key=lambda part: len(part[1]))
    assert len(held) > 3 and len(held) % 3
    files, info = build_partition(part_id, iter(held))
    files_by_path = dict(files)
    rows = [
        row
        for chunk in range(-(-len(held) // CHUNK_SIZE))
        for row in json.loads(files_by_path[f"{part_id}/d/{chunk}.json"])
    ]
    excerpts = [
        text
        for chunk in range(-(-len(held) // CHUNK_SIZE))
        for text in json.loads(files_by_path[f"{part_id}/e/{chunk}.json"])
    ]
    rows = [[*row[:8], excerpt, *row[9:]] for row, excerpt in zip(rows, excerpts, strict=True)]
    assert rows == [json.loads(json.dumps(document.row(), ensure_ascii=False)) for document in held]
    assert info.docs == len(held) == sum(count for _day, count in info.days or [])
    postings = {}
    for path, content in files:
        if "/s/" in path:
            postings.update(decode_shard(content))
    for doc_id, document in enumerate(held):
        if document.pull_request:  # its "#N" gram names this document's id
            assert doc_id in dict(postings[PULL_REQUEST_GRAM + str(document.pull_request)]), document.title


def test_entry_encoding_round_trips() -> None:
    from array import array

    entry = encode_entry("缓存", array("I", [0 << 2 | 3, 1 << 2 | 0, 200 << 2 | 1, 70000 << 2 | 2]))
    assert decode_shard(entry + encode_entry("ab", array("I", [5 << 2]))) == {
        "缓存": [(0, 3), (1, 0), (200, 1), (70000, 2)],
        "ab": [(5, 0)],
    }
    assert shard_count(0) == 1 and shard_count(10 * 1024 * 1024) == 512


def reference_entry(gram: str, postings: list[int]) -> bytes:
    """An entry as the module's docstring states it, one posting at a time."""

    def varint(value: int) -> bytes:
        out = bytearray()
        while value >= 0x80:
            out.append(value & 0x7F | 0x80)
            value >>= 7
        return bytes((*out, value))

    raw = gram.encode("utf-8")
    out, previous = varint(len(raw)) + raw + varint(len(postings)), 0
    for posting in postings:
        out += varint((posting >> 2) - previous << 2 | posting & 3)
        previous = posting >> 2
    return out


@pytest.mark.parametrize(
    "gaps",
    [
        [],
        [0, 1, 1, 31],  # every value below 128: one byte each
        [0, 32, 1],  # 128 and more: two bytes, though bytes() would take it
        [63, 64, 1],  # 256 and more
        [4095, 4096, 1 << 20, 1],  # past the two-byte varints
    ],
)
def test_entry_bytes_at_the_varint_edges(gaps: list[int]) -> None:
    from array import array
    from itertools import accumulate

    postings = [doc << 2 | index % 4 for index, doc in enumerate(accumulate(gaps))]
    assert encode_entry("g", array("I", postings)) == reference_entry("g", postings)


class CountingReader:
    """The index files in memory, counting what a search reads."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.paths: list[str] = []

    def __call__(self, path: str) -> bytes:
        self.paths.append(path)
        return self.files[path]


QUERIES = (*TERMS, "推测解码", "speculative decoding", "eagle", "kernel 缓存", "#31807", "rocm 注意力", "zzqx")


def test_the_filter_never_hides_a_match(built) -> None:
    files, _texts = built
    for query in QUERIES:
        assert search(files.__getitem__, query) == search(files.__getitem__, query, use_filter=False), query


def test_a_query_with_no_match_reads_only_filter_blocks(
    analysed_sample: list[CommitRecord], taxonomy: Taxonomy
) -> None:
    from datetime import timedelta

    moved = []
    for i, record in enumerate(analysed_sample):
        committed = record.commit.committed_at - timedelta(days=100 * (i % 3))
        moved.append(record.model_copy(update={"commit": record.commit.model_copy(update={"committed_at": committed})}))
    index = build_index(moved, repository="vllm-project/vllm", zone=ZoneInfo("UTC"), taxonomy=taxonomy)
    files = dict(search_files(search_documents(index, taxonomy), search_names(taxonomy, "zh"), commit_url="c/{sha}"))
    assert len(json.loads(files[MANIFEST])["partitions"]) >= 3
    reader = CountingReader(files)
    assert search(reader, "quokkaplatypus 鸭嘴兽") == []
    assert reader.paths[0] == MANIFEST
    assert all(path.startswith("filter/") for path in reader.paths[1:]), reader.paths
    assert sum(len(files[path]) for path in reader.paths[1:]) < 4096
    # A word in one partition's commits only reads that partition's shards.
    reader.paths.clear()
    found = search(reader, "FlashInfer")
    assert found
    touched = {path.split("/")[0] for path in reader.paths if "/s/" in path}
    holding = {path.split("/")[0] for path in reader.paths if "/d/" in path}
    assert touched == holding


def test_importance_and_days_filter(built, analysed_sample: list[CommitRecord]) -> None:
    from datetime import date

    files, _texts = built
    rows = {row[0]: row for path, content in files.items() if "/d/" in path for row in json.loads(content)}
    high = search(files.__getitem__, "", importance="high")
    assert high and {rows[sha][3] for sha in high} == {"high"}
    assert set(search(files.__getitem__, "修复", importance="high")) <= set(high)
    day = date(2026, 1, 8)
    on_day = search(files.__getitem__, "", importance="high", since=day, until=day)
    assert on_day and {rows[sha][2] for sha in on_day} == {"2026-01-08"}
    assert set(on_day) < set(high)


def chunk_order(path: str) -> tuple[str, int]:
    folder, _kind, name = path.rsplit("/", 2)
    return folder, int(name.split(".")[0])


def test_rows_hold_the_pull_request_an_excerpt_and_grams_their_best_field(built) -> None:
    files, texts = built
    rows = [
        row
        for path in sorted((path for path in files if "/d/" in path), key=chunk_order)
        for row in json.loads(files[path])
    ]
    assert len(rows) == len(texts) and all(len(row) == 10 and row[9] == "" for row in rows)
    sample = next(row for row in rows if row[1].endswith("(#31807)"))
    assert sample[7] == 31807 and sample[8] == ""  # the excerpt is in the e/ file beside
    position = [row[0] for row in rows].index(sample[0])
    excerpt_files = sorted((path for path in files if "/e/" in path), key=chunk_order)
    excerpts = [text for path in excerpt_files for text in json.loads(files[path])]
    assert len(excerpts) == len(rows) and excerpts[position]
    assert search(files.__getitem__, "#31807")[0] == sample[0]
    part = json.loads(files[MANIFEST])["partitions"][0]
    assert sum(count for _day, count in part["days"]) == part["docs"]
    shards = {}
    for path, content in files.items():
        if "/s/" in path:
            shards.update(decode_shard(content))
    levels = dict(shards["^ne"])  # "[NemotronH] ..." starts the title
    assert levels.get(position) == 3


def test_an_excerpt_takes_the_same_room_in_chinese_and_in_english() -> None:
    commit = make_commit("a", "[Core] x", datetime(2026, 1, 8, tzinfo=UTC))
    chinese = ok_analysis(Importance.HIGH, summary=("调度器在高并发场景下的首 token 延迟显著降低。" * 20,))
    english = ok_analysis(Importance.HIGH, summary=("The scheduler is faster under load. " * 20,))
    zh = excerpt(CommitRecord(commit=commit, analysis=chinese), chinese)
    en = excerpt(CommitRecord(commit=commit, analysis=english), english)
    assert zh.endswith("…") and EXCERPT_WIDTH - 3 <= width(zh) <= EXCERPT_WIDTH and len(zh) < 200  # was 280 characters
    assert en.endswith("…") and EXCERPT_WIDTH - 40 <= width(en) <= EXCERPT_WIDTH and "  " not in en
