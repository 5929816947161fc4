"""Queries to terms and alternatives: synonyms from the taxonomy, narrower words, Chinese written
without spaces, pull request numbers."""

from __future__ import annotations

from commit_digest.meaning.taxonomy import Taxonomy
from commit_digest.search.documents import synonym_groups
from commit_digest.search.query import NARROWER_WEIGHT, PULL_REQUEST_GRAM, SYNONYM_WEIGHT, parse_query
from commit_digest.search.tokens import term_grams


def words_of(query: str, taxonomy: Taxonomy) -> list[set[str]]:
    return [
        {alternative.words for alternative in term.alternatives}
        for term in parse_query(query, synonym_groups(taxonomy))
    ]


def test_a_synonym_in_either_language_expands_to_the_label_and_its_words(taxonomy: Taxonomy) -> None:
    groups = synonym_groups(taxonomy)
    for query in ("推测解码", "投机解码", "speculative decoding", "Spec Decode"):
        [term] = parse_query(query, groups)
        words = {alternative.words for alternative in term.alternatives}
        assert {"投机解码", "推测解码", "speculative decoding", "spec decode", "eagle", "mtp"} <= words, query
        assert "\x01s:spec-decode" in {gram for alternative in term.alternatives for gram in alternative.grams}
        typed = [alternative for alternative in term.alternatives if alternative.weight == 1.0]
        assert [alternative.words for alternative in typed] == [" ".join(query.lower().split())]
        weights = {a.words: a.weight for a in term.alternatives if a not in typed}
        assert weights["eagle"] == NARROWER_WEIGHT < weights[""] == SYNONYM_WEIGHT < 1  # "" is the label


def test_a_narrower_word_is_itself_only(taxonomy: Taxonomy) -> None:
    assert words_of("eagle", taxonomy) == [{"eagle"}]
    assert words_of("张量并行", taxonomy) == [{"张量并行"}]  # not 张量 + the 并行 synonym


def test_chinese_without_spaces_is_split_around_a_synonym(taxonomy: Taxonomy) -> None:
    terms = words_of("推测解码性能", taxonomy)
    assert len(terms) == 2 and "投机解码" in terms[0] and terms[1] == {"性能"}
    assert words_of("rocm 推测解码", taxonomy)[1] >= {"投机解码", "speculative decoding"}
    assert "amd" in words_of("rocm", taxonomy)[0]


def test_words_outside_the_taxonomy_and_pull_request_numbers() -> None:
    [term] = parse_query("FlashInfer")
    [alternative] = term.alternatives
    assert alternative.grams == tuple(term_grams("flashinfer")) and alternative.weight == 1.0
    [pull] = parse_query("#31807")
    assert pull.alternatives[0].grams == (PULL_REQUEST_GRAM + "31807",)
    assert pull.alternatives[1].weight < 1.0 and pull.alternatives[1].words == "31807"
    assert parse_query("  ...  ") == [] and parse_query("") == []


def test_covering_trigrams_keep_every_match_with_fewer_grams() -> None:
    assert term_grams("speculative") == ["ati", "cul", "ive", "spe"]
    assert term_grams("moe") == ["moe"] and term_grams("fused_moe") == ["ed_", "fus", "moe"]
