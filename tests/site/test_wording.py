"""Analyses as a page in one language shows them: offline ones worded at build time from the
stored facts, LLM and legacy ones in the page's language when they have it, and otherwise in
their own, marked. One store, a Chinese and an English site, no re-analysis."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from commit_digest.meaning.offline import OfflineAnalyzer
from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import AnalysisText, CommitRecord, Importance
from commit_digest.search.documents import search_document
from commit_digest.site.model.index import build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.views.registry import generate_pages
from tests.site.factories import REPOSITORY, make_commit, ok_analysis, sha_for
from tests.site.html import visible_text

TAXONOMY = load_taxonomy()
CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH = AnalysisText(summary=("Tunes the fused MoE kernel.",), conclusion="A small, safe change.")


WHEN = datetime(2026, 1, 15, 10, 0, tzinfo=UTC)


def _records() -> list[CommitRecord]:
    offline_commit = make_commit("offline-zh", "[ROCm] Tune fused MoE kernel (#1)", WHEN)
    chinese_offline = OfflineAnalyzer(TAXONOMY, "zh").analyze(offline_commit)  # stored in Chinese
    return [
        CommitRecord(commit=offline_commit, analysis=chinese_offline),
        CommitRecord(
            commit=make_commit("llm-zh", "[Core] Only Chinese (#2)", WHEN + timedelta(hours=1)),
            analysis=ok_analysis(Importance.HIGH),
        ),
        CommitRecord(
            commit=make_commit("llm-both", "[Core] Both languages (#3)", WHEN + timedelta(hours=2)),
            analysis=ok_analysis(Importance.LOW).with_translation("en", ENGLISH),
        ),
    ]


def _index(language: str):
    return build_index(_records(), repository=REPOSITORY, zone=ZoneInfo("UTC"), taxonomy=TAXONOMY, language=language)


def _by_sha(language: str) -> dict[str, object]:
    return {item.sha: item for day in _index(language).days for item in day.commits}


def test_an_offline_analysis_stored_in_chinese_reads_in_english_on_the_english_site() -> None:
    english = _by_sha("en")[sha_for("offline-zh")]
    assert english.original_language is None
    assert english.analysis.summary and not any(CJK.search(line) for line in english.analysis.summary)
    assert english.analysis.importance == english.record.analysis.importance  # facts unchanged
    assert english.analysis.platforms == english.record.analysis.platforms
    chinese = _by_sha("zh")[sha_for("offline-zh")]
    assert chinese.analysis.summary == chinese.record.analysis.summary  # the same rules, the same words


def test_an_llm_analysis_shows_its_translation_or_its_own_text_marked() -> None:
    english = _by_sha("en")
    both = english[sha_for("llm-both")]
    assert both.original_language is None and both.analysis.summary == ENGLISH.summary
    only_chinese = english[sha_for("llm-zh")]
    assert only_chinese.original_language == "zh"
    assert only_chinese.analysis.summary == only_chinese.record.analysis.summary
    chinese = _by_sha("zh")
    assert chinese[sha_for("llm-both")].analysis.summary == ("新增功能摘要 feature summary",)
    assert chinese[sha_for("llm-zh")].original_language is None


def test_pages_mark_an_analysis_shown_in_another_language() -> None:
    index = _index("en")
    specs = {spec.src_uri: spec for spec in generate_pages(index, TAXONOMY, SiteOptions(language="en"))}
    marked = specs[f"commits/{sha_for('llm-zh')[:12]}.md"].render().html
    assert "Original in Chinese" in visible_text(marked) and 'lang="zh"' in marked
    translated = specs[f"commits/{sha_for('llm-both')[:12]}.md"].render().html
    assert "Original in" not in visible_text(translated) and "Tunes the fused MoE kernel." in translated
    [day] = [spec for uri, spec in specs.items() if uri.startswith("days/")]
    assert visible_text(day.render().html).count("Original in Chinese") == 1


def test_each_languages_search_indexes_that_languages_words() -> None:
    english = {item.sha: search_document(item, TAXONOMY) for day in _index("en").days for item in day.commits}
    chinese = {item.sha: search_document(item, TAXONOMY) for day in _index("zh").days for item in day.commits}
    assert "Tunes the fused MoE kernel." in english[sha_for("llm-both")].text
    assert "Tunes the fused MoE kernel." not in chinese[sha_for("llm-both")].text
    offline = sha_for("offline-zh")
    english_summary = _by_sha("en")[offline].analysis.summary[0]
    assert english_summary in english[offline].text and english_summary not in chinese[offline].text
