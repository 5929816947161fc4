"""A stylesheet holding only the rules one page can match, derived from the theme's own.

The search page is one page with a known markup (its template, its Markdown, and the classes its
scripts give what they build), yet material's stylesheet (137 KB) styles every component the
theme has. ``page_stylesheet`` keeps each rule whose selector can match on that page: every class
and element it names outside a functional pseudo-class is one the page can carry, and every
colour it asks for with ``data-md-color-primary``/``accent`` is one the site's palette offers. A rule is never
rewritten, only kept or left out; at-rules other than @media/@supports (keyframes, font faces,
properties) are kept whole, so what is kept cascades exactly as in the theme's stylesheet.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import tinycss2
from tinycss2.ast import Node

# Words that may be class names: in class attributes, and every word of a script (a superset of
# the classes it sets is harmless: a rule too many is kept, never one too few).
_CLASS_ATTRIBUTE = re.compile(r"""class=(?:"([^"]*)"|'([^']*)')""")
_WORD = re.compile(r"[A-Za-z_][\w-]*")
_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9]*)")
# The palette's colours chosen by attribute (palette.css): one rule per colour of the theme.
_COLOR_ATTRIBUTES = ("data-md-color-primary", "data-md-color-accent")
_GROUPING_AT_RULES = ("media", "supports")


@dataclass(frozen=True)
class PageVocabulary:
    """What a page can carry: its classes and elements (lower case), and the palette colours its
    site offers."""

    classes: frozenset[str]
    elements: frozenset[str]
    colors: frozenset[str]


def markup_classes(markup: Iterable[str]) -> set[str]:
    """The words of every class attribute in these HTML texts (templates included: a template
    expression inside an attribute only adds words)."""
    found: set[str] = set()
    for text in markup:
        for match in _CLASS_ATTRIBUTE.finditer(text):
            found.update(_WORD.findall(match.group(1) or match.group(2) or ""))
    return found


def markup_elements(markup: Iterable[str]) -> set[str]:
    """The names of the elements these HTML texts (templates included) open, in lower case."""
    return {name.lower() for text in markup for name in _TAG.findall(text)}


def script_words(scripts: Iterable[str]) -> set[str]:
    """Every word of these scripts: each class a script sets and element it makes is among them
    (elements are compared in lower case)."""
    found: set[str] = set()
    for text in scripts:
        found.update(_WORD.findall(text))
    return found


def page_stylesheet(stylesheets: Sequence[str], vocabulary: PageVocabulary) -> str:
    """The rules of ``stylesheets`` (in order, as one) that can match on a page of ``vocabulary``."""
    kept: list[str] = []
    for css in stylesheets:
        rules = tinycss2.parse_stylesheet(css, skip_whitespace=True, skip_comments=True)
        kept.extend(_rules(rules, vocabulary))
    return "".join(kept) + "\n"


def _rules(rules: Iterable[Node], vocabulary: PageVocabulary) -> list[str]:
    kept: list[str] = []
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = [selector for selector in _split(rule.prelude) if _may_match(selector, vocabulary)]
            if selectors:
                prelude = ",".join(tinycss2.serialize(selector).strip() for selector in selectors)
                kept.append(prelude + "{" + tinycss2.serialize(rule.content) + "}")
        elif rule.type == "at-rule":
            if rule.lower_at_keyword in _GROUPING_AT_RULES and rule.content is not None:
                inner = tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True, skip_comments=True)
                body = _rules(inner, vocabulary)
                if body:
                    prelude = tinycss2.serialize(rule.prelude)
                    kept.append("@" + rule.at_keyword + prelude + "{" + "".join(body) + "}")
            else:
                kept.append(tinycss2.serialize([rule]))
    return kept


def _split(prelude: Sequence[Node]) -> list[list[Node]]:
    """A selector list's selectors (commas inside functions belong to them)."""
    selectors: list[list[Node]] = [[]]
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            selectors.append([])
        else:
            selectors[-1].append(token)
    return [selector for selector in selectors if any(token.type != "whitespace" for token in selector)]


def _may_match(selector: Sequence[Node], vocabulary: PageVocabulary) -> bool:
    """Whether each class and element the selector names (outside :not(), :is()… whose arguments
    are left unread: keeping more is safe) is one the page has, and each palette colour one it
    offers."""
    previous: Node | None = None
    for token in selector:
        after = previous.value if previous is not None and previous.type == "literal" else None
        if not _token_may_match(token, after, vocabulary):
            return False
        previous = token
    return True


def _token_may_match(token: Node, after: str | None, vocabulary: PageVocabulary) -> bool:
    """One token of a selector, after the punctuation ``after`` (None after anything else)."""
    if token.type == "ident" and after == ".":
        return token.value in vocabulary.classes
    if token.type == "ident" and after != ":":  # a type selector (not a pseudo-class)
        return token.lower_value in vocabulary.elements
    if token.type == "[] block":
        return _color_offered(token.content, vocabulary.colors)
    return True


def _color_offered(attribute: Sequence[Node], colors: frozenset[str]) -> bool:
    tokens = [token for token in attribute if token.type != "whitespace"]
    if len(tokens) == 3 and tokens[0].type == "ident" and tokens[0].lower_value in _COLOR_ATTRIBUTES:
        value = tokens[2]
        if value.type in ("ident", "string") and tokens[1].type == "literal" and tokens[1].value == "=":
            return str(value.value) in colors
    return True
