"""The search page's own weight, before any index file, and the stylesheet it is made light with:
the lean slim frame (plugins/commit_digest_mkdocs/search_frame.py) loads neither material's
script nor its whole stylesheet, yet every class its markup and its scripts' results carry that
the theme styles is still styled."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
import tinycss2
from benchmarks.browser import serve
from playwright.sync_api import Browser, Page
from tinycss2.ast import Node

from commit_digest.models import CommitRecord
from commit_digest.search.page import QUERY_SCRIPT, SCRIPT, asset
from tests.site.conftest import BuiltSite, build_site

# What search/index.html loaded on the zh demo before the lean frame (issue 40), in bytes raw and
# gzip -9: the page, material's main and palette stylesheets and script, the site's stylesheets
# and scripts.
REFERENCE_RAW = 19_710 + 137_572 + 11_930 + 27_143 + 5_343 + 10_470 + 43_505 + 114_081 + 417 + 20_026
REFERENCE_GZIP = 5_013 + 22_633 + 2_042 + 6_790 + 1_720 + 3_233 + 11_723 + 34_843 + 335 + 6_101
_LOADED = re.compile(r'<(?:link rel="stylesheet" href|script src)="\.\./([^"]+)"')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, analysed_sample: list[CommitRecord]) -> BuiltSite:
    return build_site(tmp_path_factory.mktemp("search-weight"), analysed_sample)


@pytest.fixture(scope="module")
def site_url(site: BuiltSite) -> Iterator[str]:
    with serve(site.site) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []


def _loaded(site: Path) -> list[Path]:
    """The search page and every stylesheet and script it references (none is an index file:
    the client fetches those itself)."""
    html = (site / "search/index.html").read_text(encoding="utf-8")
    return [site / "search/index.html", *(site / path for path in dict.fromkeys(_LOADED.findall(html)))]


def _selectors(css: str) -> Iterator[tuple[str, set[str], set[str]]]:
    """Each selector of a stylesheet (in @media and @supports too) with the classes and element
    names it requires (those inside :not(), :is()… are not required)."""

    def walk(rules: list[Node]) -> Iterator[tuple[str, set[str], set[str]]]:
        for rule in rules:
            if rule.type == "at-rule" and rule.lower_at_keyword in ("media", "supports") and rule.content:
                yield from walk(tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True, skip_comments=True))
            elif rule.type == "qualified-rule":
                selector: list[Node] = []
                for token in [*rule.prelude, None]:
                    if token is None or (token.type == "literal" and token.value == ","):
                        yield tinycss2.serialize(selector).strip(), *_required(selector)
                        selector = []
                    else:
                        selector.append(token)

    yield from walk(tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True))


def _required(selector: list[Node]) -> tuple[set[str], set[str]]:
    """Classes, and element names and palette colours (``tag`` and ``color:indigo``)."""
    classes, elements = set(), set()
    for previous, token in zip([None, *selector], selector, strict=False):
        after = previous.value if previous is not None and previous.type == "literal" else None
        if token.type == "ident" and after == ".":
            classes.add(token.value)
        elif token.type == "ident" and after != ":":
            elements.add(token.lower_value)
        elif token.type == "[] block":
            parts = [part for part in token.content if part.type != "whitespace"]
            if len(parts) == 3 and parts[0].type == "ident" and parts[0].value.startswith("data-md-color-"):
                elements.add(f"color:{parts[2].value}")
    return classes, elements


def test_the_search_page_weighs_at_most_half_what_it_did(site: BuiltSite) -> None:
    files = _loaded(site.site)
    names = [path.name for path in files]
    assert not any(name.startswith(("bundle.", "main.")) for name in names), names
    assert "digest-search.js" in names and "digest-search-theme.css" in names
    assert "digest-lean.css" in names and "digest.css" not in names  # the site's stylesheet, cut
    html = files[0].read_text(encoding="utf-8")
    assert "<title>搜索 - " in html and '<span class="md-ellipsis">搜索</span>' in html  # in the header too
    raw = sum(len(path.read_bytes()) for path in files)
    zipped = sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)
    assert raw <= REFERENCE_RAW / 2, (raw, names)
    assert zipped <= REFERENCE_GZIP / 2, (zipped, names)


@pytest.mark.parametrize("name", [QUERY_SCRIPT, SCRIPT])
def test_the_client_scripts_are_published_minified(name: str) -> None:
    source = (resources.files("commit_digest.search") / name).read_text(encoding="utf-8")
    published = asset(name)
    comments = re.findall(r"/\*(.*?)\*/", source, flags=re.DOTALL) + re.findall(r"^\s*//(.*)$", source, re.MULTILINE)
    words = [line.strip(" *") for text in comments for line in text.splitlines() if len(line.strip(" *")) > 12]
    assert len(words) > 10 and not [text for text in words if text in published]
    assert len(published) < 0.75 * len(source)
    # What it still does is the browser tests' (tests/search/test_search_browser.py, test_js_tokens.py).


def test_every_class_on_the_search_page_the_theme_styles_is_in_its_stylesheet(
    site: BuiltSite, site_url: str, page: Page
) -> None:
    """Classes of the page's markup, of the results its script lists, of the header box's
    results: each selector of material's stylesheets they (and the page's elements) can match
    is in the page's own stylesheet."""
    page.goto(site_url + "search/?q=rocm")
    page.wait_for_selector(".digest-search__result")
    page.fill(".digest-hsearch__input", "rocm")
    page.wait_for_selector(".digest-hsearch__result")
    used = set(page.evaluate("() => [...document.querySelectorAll('[class]')].flatMap((e) => [...e.classList])"))
    # And what the page is before its scripts replace it: the served markup (the header box's
    # placeholder), marked as scripted from its head (digest-scope.js).
    served = (site.site / "search/index.html").read_text(encoding="utf-8")
    used |= {word for value in re.findall(r'class="([^"]*)"', served) for word in value.split()}
    scope = (site.site / "assets/digest-scope.js").read_text(encoding="utf-8")
    used |= set(re.findall(r'classList\.add\("([^"]+)"\)', scope))
    assert {"digest-hsearch-place", "digest-js"} <= used
    tags = set(page.evaluate("() => [...document.querySelectorAll('*')].map((e) => e.localName)"))
    tags |= {
        f"color:{value}"
        for value in page.evaluate(
            "() => [...document.querySelectorAll('[data-md-color-scheme]')].flatMap((e) => "
            "['scheme', 'primary', 'accent'].map((key) => e.getAttribute('data-md-color-' + key)))"
        )
    }
    theme = [path.read_text(encoding="utf-8") for path in sorted((site.site / "assets/stylesheets").glob("*.min.css"))]

    def needed(stylesheets: list[str]) -> set[str]:
        return {
            selector
            for css in stylesheets
            for selector, classes, elements in _selectors(css)
            if classes and classes <= used and elements <= tags
        }

    def selectors(path: str) -> set[str]:
        return {selector for selector, _, _ in _selectors((site.site / path).read_text(encoding="utf-8"))}

    assert {".md-header", ".md-tabs", ".md-typeset h1"} <= needed(theme)
    assert needed(theme) - selectors("assets/digest-search-theme.css") == set()
    # The site's own stylesheet, cut the same way: the header box, the navigation, the footer.
    site_rules = needed([(site.site / "assets/digest.css").read_text(encoding="utf-8")])
    assert [rule for rule in site_rules if ".digest-hsearch__input" in rule]
    assert [rule for rule in site_rules if ".digest-nav__title" in rule]
    assert site_rules - selectors("assets/digest-lean.css") == set()


def test_the_palette_toggle_switches_the_colours_and_keeps_them(site_url: str, page: Page) -> None:
    """Without material's script: the lean frame's own switches them, in material's storage."""
    page.emulate_media(color_scheme="light")
    page.goto(site_url + "search/")
    body = page.locator("body")
    assert body.get_attribute("data-md-color-scheme") == "default"
    page.locator("label[for='__palette_1']").click()
    assert body.get_attribute("data-md-color-scheme") == "slate"
    assert page.locator("label[for='__palette_0']").is_visible()
    page.goto(site_url)  # a page material's own script drives opens in the reader's choice
    assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"


def test_the_header_and_the_back_to_top_button_follow_the_scroll(site_url: str, page: Page) -> None:
    """As material's script does on its pages: the header's shadow and the page's title in it once
    the content has passed under it, the back-to-top button while scrolling up, which goes up."""
    page.set_viewport_size({"width": 1280, "height": 600})
    page.goto(site_url + "search/?q=rocm")
    page.wait_for_selector(".digest-search__result")
    assert page.locator(".md-top").get_attribute("tabindex") == "-1"
    page.evaluate("() => window.scrollTo(0, 1200)")
    page.wait_for_function("() => document.querySelector('.md-header').classList.contains('md-header--shadow')")
    page.wait_for_selector(".md-header__title--active")
    assert page.locator(".md-top").get_attribute("hidden") is not None  # scrolling down
    page.evaluate("() => window.scrollTo(0, 900)")
    page.wait_for_function("() => !document.querySelector('.md-top').hidden")
    page.locator(".md-top").click()
    page.wait_for_function("() => scrollY === 0 && !document.querySelector('.md-header__title--active')")
