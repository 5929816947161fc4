"""The gram scheme: a term found as a substring yields only grams the document holds."""

from __future__ import annotations

import pytest

from commit_digest.search.tokens import document_grams, fnv1a, normalise, query_grams, query_terms, term_grams


def contains_by_grams(text: str, query: str) -> bool:
    return set(query_grams(query)) <= document_grams(text)


def test_normalise_folds_width_and_case() -> None:
    assert normalise("ＦＰ８量化 MI300X") == "fp8量化 mi300x"


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("优化了 fused_moe_kernel 的调度", "fused_moe"),
        ("支持 MI300X 的 FP8 GEMM", "MI300"),
        ("新增FP8量化路径", "FP8量化"),
        ("修复 KV 缓存泄漏", "缓存"),
        ("修复显存碎片", "显存"),
        ("EngineV1引擎重构", "v1引擎"),  # a short word ending a longer run
        ("引擎V10版本", "引擎v1"),  # a short word starting a longer run
        ("用 TP 并行", "tp"),
        ("字", "字"),
        ("缓存", "存"),  # one CJK character anywhere
        ("FlashInfer 后端", "flashinfer"),
        ("ｆｕｓｅｄ＿ｍｏｅ", "fused_moe"),
        # An unspaced mixed query finds what its spaced form finds.
        ("支持 FP8 的量化路径", "FP8量化"),
        ("MoE 层的负载均衡", "MoE层"),
        ("ROCm 上的注意力后端", "rocm注意力"),
    ],
)
def test_every_substring_is_found(text: str, query: str) -> None:
    assert contains_by_grams(text, query)


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("output tensor", "tp"),  # a short word is a word, not any two letters
        ("缓冲区", "缓存"),
        ("fused kernel moe", "fused_moe"),
        ("MI250", "MI300"),
    ],
)
def test_unrelated_text_is_not_found(text: str, query: str) -> None:
    assert not contains_by_grams(text, query)


@pytest.mark.parametrize(
    ("unspaced", "spaced"), [("FP8量化", "FP8 量化"), ("MoE层", "MoE 层"), ("rocm注意力", "rocm 注意力")]
)
def test_a_mixed_script_query_asks_for_what_its_spaced_form_asks_for(unspaced: str, spaced: str) -> None:
    assert query_grams(unspaced) == query_grams(spaced)


def test_terms_split_at_any_whitespace() -> None:
    assert query_terms("  FP8\u3000量化\tMoE ") == ["fp8", "量化", "moe"]
    assert term_grams("a-b") == ["^b", "a$"]
    assert term_grams("ab") == ["^ab$"]
    assert query_grams("🙂 ！") == []


def test_fnv1a_matches_the_published_vectors() -> None:
    assert fnv1a("") == 0x811C9DC5
    assert fnv1a("a") == 0xE40C292C
    assert fnv1a("foobar") == 0xBF9CF968
