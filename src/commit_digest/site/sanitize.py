"""A backstop behind the escaping path: generated pages' HTML keeps only the markup Markdown and
mkdocs-material produce for them (no script, no event attribute, no javascript: link)."""

from __future__ import annotations

import nh3

_TAGS = frozenset(
    {
        "a",
        "abbr",
        "blockquote",
        "br",
        "code",
        "del",
        "details",
        "div",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
_ATTRIBUTES = {
    "*": {"class", "id", "title"},
    "a": {"href"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
    "ol": {"start"},
}
_URL_SCHEMES = frozenset({"http", "https", "mailto"})


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=set(_TAGS),
        attributes={tag: set(names) for tag, names in _ATTRIBUTES.items()},
        url_schemes=set(_URL_SCHEMES),
        link_rel=None,
        strip_comments=True,
    )
