"""A backstop behind the escaping path: generated pages' HTML keeps only the markup Markdown and
mkdocs-material produce for them (no script, no event attribute, no javascript: link), and the
activity charts' inline SVG (site/charts.py: svg, path, title; no link, use, image, animation,
foreignObject or style in it)."""

from __future__ import annotations

import re

import nh3

_TAGS = frozenset(
    {
        "a",
        "abbr",
        "bdi",
        "blockquote",
        "br",
        "button",
        "code",
        "del",
        "details",
        "div",
        "em",
        "figcaption",
        "figure",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "kbd",
        "label",
        "li",
        "mark",
        "nav",
        "ol",
        "option",
        "p",
        "path",
        "pre",
        "progress",
        "section",
        "select",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "svg",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "title",
        "tr",
        "ul",
    }
)
_ATTRIBUTES = {
    # hidden, aria-* and data-* drive the pages' own controls (the site script reads them and
    # sets text only); none of them can run anything.
    "*": {"class", "id", "title", "hidden", "lang", "aria-pressed", "aria-live", "aria-label"},
    "a": {"href", "rel"},
    "button": {"type"},
    "label": {"for"},
    "option": {"value"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
    "ol": {"start"},
    "li": {"value"},
    "progress": {"max", "value"},
    # Geometry only: no href, no style, no presentation attribute (colours come from CSS).
    "svg": {"viewBox", "preserveAspectRatio", "role"},
    "path": {"d"},
}
_URL_SCHEMES = frozenset({"http", "https", "mailto"})
# In nh3's output attribute values and text have "<" and ">" escaped, so tags can be told apart.
_SVG_OR_LINK_TAG = re.compile(r"<(/?)(svg|a)(?=[\s/>])[^>]*>")


def _without_links_in_svg(html: str) -> str:
    """nh3 allows tags by name, whatever their namespace: an <a> inside <svg> (an SVG link, the
    HTML <a> is allowed) loses its tags here and keeps its content."""
    if "<svg" not in html:
        return html
    parts: list[str] = []
    depth = position = 0
    for match in _SVG_OR_LINK_TAG.finditer(html):
        if match.group(2) == "svg":
            depth = max(0, depth - 1) if match.group(1) else depth + 1
        elif depth:
            parts.append(html[position : match.start()])
            position = match.end()
    parts.append(html[position:])
    return "".join(parts)


def sanitize_html(html: str) -> str:
    cleaned = nh3.clean(
        html,
        tags=set(_TAGS),
        attributes={tag: set(names) for tag, names in _ATTRIBUTES.items()},
        url_schemes=set(_URL_SCHEMES),
        generic_attribute_prefixes={"data-"},
        link_rel=None,
        strip_comments=True,
    )
    return _without_links_in_svg(cleaned)


# What ``markdown_body`` emits for a commit message or PR description, and nothing more: no class
# (a code block's "language-…" would let a message pick the theme's styles), no id, no image.
_BODY_TAGS = frozenset(
    {
        "a",
        "blockquote",
        "br",
        "code",
        "del",
        "em",
        "hr",
        "li",
        "ol",
        "p",
        "pre",
        "strong",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
# "*": nothing, not even nh3's default generic "lang" and "title".
_BODY_ATTRIBUTES = {"*": set(), "a": {"href"}, "ol": {"start"}, "td": {"align"}, "th": {"align"}}
_WEB_SCHEMES = ("http://", "https://")
BODY_LINK_REL = "nofollow ugc"


def is_web_url(url: str) -> bool:
    """An absolute http(s) URL: the only link target a message may have."""
    return url.strip().lower().startswith(_WEB_SCHEMES)


def _body_attribute(tag: str, name: str, value: str) -> str | None:
    # url_schemes only judges absolute URLs; a relative link ("../../index.md") would pass it.
    if tag == "a" and name == "href" and not is_web_url(value):
        return None
    return value


def sanitize_body_html(html: str) -> str:
    """The HTML of a rendered message: its tags only, links http(s) and marked rel="nofollow ugc"."""
    return nh3.clean(
        html,
        tags=set(_BODY_TAGS),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in _BODY_ATTRIBUTES.items()},
        attribute_filter=_body_attribute,
        url_schemes={"http", "https"},
        link_rel=BODY_LINK_REL,
        strip_comments=True,
    )
