"""The stylesheet of one page: the theme's rules its classes, elements and colours can match."""

from __future__ import annotations

from commit_digest.site.build.page_styles import (
    PageVocabulary,
    markup_classes,
    markup_elements,
    page_stylesheet,
    script_words,
)

VOCABULARY = PageVocabulary(
    classes=frozenset({"md-header", "md-typeset", "shown"}),
    elements=frozenset({"a", "h1", "svg"}),
    colors=frozenset({"indigo"}),
)


def test_a_rule_is_kept_when_each_class_and_element_it_names_is_on_the_page() -> None:
    css = ".md-header{color:red}.md-search{color:blue}.md-typeset h1{margin:0}.md-typeset table{border:0}"
    assert page_stylesheet([css], VOCABULARY) == ".md-header{color:red}.md-typeset h1{margin:0}\n"


def test_a_selector_list_keeps_only_its_selectors_that_may_match() -> None:
    css = ".md-search,.md-header:hover,a:not(.md-gone)::before,:is(.md-x,.md-y) svg{top:0}"
    assert (
        page_stylesheet([css], VOCABULARY) == ".md-header:hover,a:not(.md-gone)::before,:is(.md-x,.md-y) svg{top:0}\n"
    )


def test_grouping_rules_keep_what_they_hold_that_may_match_and_other_at_rules_stay_whole() -> None:
    css = (
        "@media screen and (max-width:76em){.md-header{top:0}.md-nav{top:0}}"
        "@media print{.md-nav{display:none}}@keyframes spin{0%{top:0}to{top:1px}}"
        "@supports (display:grid){.shown{display:grid}}"
    )
    assert page_stylesheet([css], VOCABULARY) == (
        "@media screen and (max-width:76em){.md-header{top:0}}@keyframes spin{0%{top:0}to{top:1px}}"
        "@supports (display:grid){.shown{display:grid}}\n"
    )


def test_only_the_palette_colours_the_site_offers_are_kept() -> None:
    css = (
        "[data-md-color-primary=indigo]{--c:1}[data-md-color-accent=red]{--c:2}"
        '[data-md-color-primary="black"] .md-header{--c:3}[data-md-color-scheme=slate]{--c:4}'
    )
    assert page_stylesheet(["a{x:1}", css], VOCABULARY) == (
        "a{x:1}[data-md-color-primary=indigo]{--c:1}[data-md-color-scheme=slate]{--c:4}\n"
    )


def test_the_vocabulary_comes_from_class_attributes_tags_and_every_word_of_the_scripts() -> None:
    markup = ["<div class=\"md-header {{ extra }}\"><a class='md-logo'>x</a></div>", "<SVG></SVG>"]
    assert markup_classes(markup) == {"md-header", "extra", "md-logo"}
    assert markup_elements(markup) == {"div", "a", "svg"}
    assert {"li", "digest-search__result"} <= script_words(['element("li", "digest-search__result");'])
