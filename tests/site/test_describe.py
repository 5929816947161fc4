"""What a page says of itself (its meta description, OpenGraph card and language alternates) and
the site's robots.txt, without MkDocs: the wording, the cutting and the escaping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from zoneinfo import ZoneInfo

from commit_digest.meaning.taxonomy import load_taxonomy
from commit_digest.models import CommitRecord, Importance
from commit_digest.site.build.robots import robots_txt
from commit_digest.site.model.index import SiteIndex, build_index
from commit_digest.site.options import SiteOptions
from commit_digest.site.rendering.describe import (
    DESCRIPTION_WIDTH,
    clipped,
    commit_description,
    commits_description,
    label_description,
    listing_description,
    width,
)
from commit_digest.site.rendering.head import ALTERNATE_REL, SiteHead, site_head
from commit_digest.site.rendering.i18n import Texts
from commit_digest.site.views.base import PageSpec
from commit_digest.site.views.registry import generate_pages
from tests.site.factories import make_commit, ok_analysis, sample_records

TAXONOMY = load_taxonomy()
HOSTILE = "Fix \"quoted\" 'x' <script>alert(1)</script> & </head>\n<meta name=x>\u202etxet\u2066 `code` done"


def _index(records: list[CommitRecord], language: str = "zh") -> SiteIndex:
    return build_index(
        records,
        repository="vllm-project/vllm",
        zone=ZoneInfo("Asia/Shanghai"),
        taxonomy=TAXONOMY,
        language=language,  # type: ignore[arg-type]
    )


def _specs(records: list[CommitRecord], language: str = "zh") -> dict[str, PageSpec]:
    options = SiteOptions(language=language, timezone="Asia/Shanghai")  # type: ignore[arg-type]
    return {spec.src_uri: spec for spec in generate_pages(_index(records, language), TAXONOMY, options)}


# -- plain text and cutting ---------------------------------------------------------------------


def test_a_gist_is_one_line_of_plain_text_as_the_page_shows_it() -> None:
    """The page shows an analysis as escaped text: its description is that text on one line, code
    spans without their backticks, without line breaks or explicit direction controls."""
    item = _index(
        [
            CommitRecord(
                commit=make_commit("a", "[Core] x", datetime(2026, 1, 8, tzinfo=UTC)),
                analysis=ok_analysis(Importance.HIGH, summary=("`__init__` of *one*\npath\u202e",)),
            )
        ]
    )
    assert commit_description(item.days[0].commits[0], Texts("en")) == "__init__ of *one* path"


def test_a_long_description_is_cut_at_a_word_or_a_character() -> None:
    words = "word " * 50
    cut = clipped(words.strip())
    assert width(cut) <= DESCRIPTION_WIDTH and cut.endswith("word…")
    assert clipped("x" * 10) == "x" * 10
    chinese = "在上启用布局" * 30
    cut = clipped(chinese)
    assert len(cut) == DESCRIPTION_WIDTH // 2 and width(cut) == DESCRIPTION_WIDTH - 1 and cut.endswith("…")
    # A word in a line of Chinese is not cut either: "ROCm" stays whole.
    assert clipped("中" * 78 + " ROCm 加速") == "中" * 78 + "…"
    # Never inside a character as it is seen: a combining accent or a joined emoji stays whole.
    accented = "a" * (DESCRIPTION_WIDTH - 2) + "e\u0301" + "tail"
    assert clipped(accented) == "a" * (DESCRIPTION_WIDTH - 2) + "…"
    family = "x " * 79 + "\U0001f468\u200d\U0001f469\u200d\U0001f467" + " end"
    assert clipped(family) == "x " * 78 + "x…"


# -- each kind of page ----------------------------------------------------------------------------


def test_a_commit_page_is_described_by_its_gist_or_its_title_and_day() -> None:
    when = datetime(2026, 1, 8, 3, 0, tzinfo=UTC)
    gist = "**Fixes** the `KV cache` layout on ROCm\nso that paged attention is faster"
    records = [
        CommitRecord(
            commit=make_commit("a", "[ROCm] Layout", when), analysis=ok_analysis(Importance.HIGH, summary=(gist,))
        ),
        CommitRecord(commit=make_commit("b", HOSTILE, when), analysis=None),
    ]
    index = _index(records)
    analysed, unanalysed = sorted(index.days[0].commits, key=lambda item: item.analysed, reverse=True)
    assert (
        commit_description(analysed, Texts("zh"))
        == "**Fixes** the KV cache layout on ROCm so that paged attention is faster"
    )
    described = commit_description(unanalysed, Texts("en"))
    assert described.endswith("code done (2026-01-08)") and "\n" not in described and "\u202e" not in described
    assert "`" not in described
    spec = _specs(records)[f"commits/{analysed.sha[:12]}.md"]
    assert spec.article and spec.description().startswith("**Fixes** the KV cache")


def test_a_day_page_gives_its_counts_and_most_important_titles_in_the_sites_language() -> None:
    specs = _specs(sample_records())
    zh = specs["days/2026-01-15.md"].description()
    assert zh.startswith("2026-01-15：") and "个提交，高 1 · 中 1 · 低 1" in zh
    assert zh.index("Enable shuffle kv cache layout") < zh.index("Support MXFP4")  # high first
    en = _specs(sample_records(), "en")["days/2026-01-15.md"].description()
    assert en.startswith("2026-01-15: ") and "commits, 1 high · 1 medium · 1 low" in en
    assert width(zh) <= DESCRIPTION_WIDTH and width(en) <= DESCRIPTION_WIDTH
    assert not specs["days/2026-01-15.md"].article


def test_label_pages_give_their_name_count_and_period() -> None:
    specs = _specs(sample_records())
    rocm = specs["platforms/rocm/index.md"].description()
    assert rocm.startswith("ROCm（AMD）：2026-01-15 共 2 个提交。AMD GPU")
    cuda = specs["platforms/cuda/index.md"].description()
    assert cuda.startswith("CUDA（NVIDIA）：2026-01-15 至 2026-01-17 共 10 个提交。NVIDIA GPU")
    month = next(spec for uri, spec in specs.items() if uri.startswith("platforms/rocm/2026-01"))
    assert month.description().startswith("ROCm") and "2026-01" in month.description()
    listing = specs["platforms/index.md"].description()
    assert listing.startswith("平台：") and "ROCm" in listing
    week = next(spec for uri, spec in specs.items() if uri.startswith("weeks/2026-W"))
    assert "个提交" in week.description()
    assert "个提交" in specs["archive/index.md"].description()
    # Home and the pages of nothing in particular: the site's description ("").
    assert specs["index.md"].description() == ""


def test_descriptions_of_nothing_are_the_sites_and_names_are_plain() -> None:
    texts = Texts("en")
    assert commits_description("Operator impact", [], texts) == ""
    assert listing_description("Releases", [("v1", 0)], texts) == ""
    assert listing_description("Series", [("`fused` MoE\u202e", 3)], texts) == "Series: fused MoE: 3"
    assert label_description("CUDA", [], texts, "NVIDIA GPUs") == "CUDA NVIDIA GPUs"
    assert label_description("CUDA", [], Texts("zh"), "") == "CUDA"


# -- the head tags ------------------------------------------------------------------------------


class _Head(HTMLParser):
    """The tags a head holds, and any text or script in it (there must be none)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.tags.append(("/" + tag, {}))

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.text.append(data)


def _parsed(html: str) -> _Head:
    parser = _Head()
    parser.feed(html)
    parser.close()
    return parser


def _site(languages: tuple[str, ...] = ("zh", "en"), language: str = "en") -> SiteHead:
    url = "https://digest.example.org/" + ("en/" if language == "en" and len(languages) > 1 else "")
    return site_head('Digest "of" <vLLM>', "The site & more", language, languages, url)


def test_a_hostile_title_and_gist_stay_attribute_values() -> None:
    head = _site().page("commits/abc/", title=HOSTILE, description=HOSTILE, article=True)
    parsed = _parsed(f'<meta name="description" content="{head.description}">' + head.tags)
    assert parsed.text == []  # no text, so no tag was closed early
    assert [tag for tag, _ in parsed.tags] == ["meta"] * 8 + ["link"] * 3  # no <script>, no </head>
    values = {attrs.get("property") or attrs.get("name"): attrs.get("content") for _, attrs in parsed.tags}
    # The whole text, as one line, in the attribute: the reader sees what was written.
    assert values["description"] == values["og:description"] == values["og:title"]
    assert values["og:title"] is not None and "<script>alert(1)</script> & </head> <meta name=x>" in values["og:title"]
    assert "\n" not in head.tags and "<script" not in head.tags
    assert values["og:type"] == "article" and values["og:locale"] == "en_US"
    assert values["og:site_name"] == 'Digest "of" <vLLM>' and values["twitter:card"] == "summary"
    assert values["og:url"] == "https://digest.example.org/en/commits/abc/"


def test_each_language_of_the_page_is_linked_by_its_absolute_address() -> None:
    for language in ("zh", "en"):
        links = _parsed(_site(language=language).page("days/2026-01-08/", title="t").tags).tags
        alternates = {attrs["hreflang"]: attrs["href"] for tag, attrs in links if tag == "link"}
        assert alternates == {
            "zh": "https://digest.example.org/days/2026-01-08/",
            "en": "https://digest.example.org/en/days/2026-01-08/",
            "x-default": "https://digest.example.org/days/2026-01-08/",
        }
    # Not "alternate" alone: material's script would fetch a sitemap.xml beside each of them.
    assert f'rel="{ALTERNATE_REL}"' in _site().page("", title="t").tags and ALTERNATE_REL.strip() == "alternate"
    one_language = _site(("zh",), "zh").page("", title="t")
    assert "hreflang" not in one_language.tags and 'content="zh_CN"' in one_language.tags
    no_url = site_head("Digest", None, "zh", ("zh", "en"), None).page("about/", title="About")
    assert "og:url" not in no_url.tags and "hreflang" not in no_url.tags and "og:description" not in no_url.tags
    assert _site().page("", title="Home").description == "The site &amp; more"  # the site's, when none


# -- robots.txt -------------------------------------------------------------------------------


def test_robots_txt_allows_all_but_the_builds_state_and_names_each_sitemap() -> None:
    assert robots_txt("https://digest.example.org/", ("zh", "en")) == (
        "User-agent: *\nAllow: /\nDisallow: /.commit-digest/\nDisallow: /en/.commit-digest/\n\n"
        "Sitemap: https://digest.example.org/sitemap.xml\nSitemap: https://digest.example.org/en/sitemap.xml\n"
    )
    under = robots_txt("https://user.github.io/digest/", ("en",))
    assert (
        "Disallow: /digest/.commit-digest/" in under and "Sitemap: https://user.github.io/digest/sitemap.xml" in under
    )
    assert "Sitemap" not in robots_txt(None, ("zh",)) and "Disallow: /.commit-digest/" in robots_txt(None, ("zh",))


def test_a_busy_day_lists_as_many_titles_as_its_description_holds() -> None:
    when = datetime(2026, 1, 8, 3, 0, tzinfo=UTC)
    records = [
        CommitRecord(
            commit=make_commit(f"c{n}", f"[Core] Change number {n} of many", when + timedelta(minutes=n)),
            analysis=ok_analysis(Importance.LOW if n % 2 else Importance.HIGH),
        )
        for n in range(60)
    ]
    described = _specs(records, "en")["days/2026-01-08.md"].description()
    assert described.startswith("2026-01-08: 60 commits, 30 high · 30 low. [Core] Change number 58 of many")
    assert width(described) <= DESCRIPTION_WIDTH and described.endswith("…")
