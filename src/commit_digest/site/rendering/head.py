"""The tags in a page's <head> that say what the page is to search engines and link previews:
its OpenGraph card (title, description, address, type, locale, site), Twitter's card type, and
on a site in several languages the same page in each language (hreflang).

Pure: plain text in, HTML out. Every value is an attribute value escaped by the site's one
escaping path (``escape.html_text``: line breaks and control characters folded, ``& < > " '``
as entities), so no title or gist can close the attribute or the tag it is in.

Twitter reads og:title and og:description when twitter:title and twitter:description are
missing: only its card type is written, so the description is in a page twice, not four times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from commit_digest.site.languages import language_root
from commit_digest.site.rendering.escape import html_text

# og:locale of each language the site is written in.
OG_LOCALES = {"zh": "zh_CN", "en": "en_US"}
# The rel of a language alternate. "alternate " with its space, never the value "alternate"
# alone: material's script takes every link[rel=alternate] (an exact match) for a version of
# the site and downloads sitemap.xml beside it on each page view (commits/<sha>/sitemap.xml, a
# 404). The attribute is a set of space-separated tokens: to search engines it is "alternate".
ALTERNATE_REL = "alternate "


@dataclass(frozen=True)
class PageHead:
    """What one page adds to its frame's <head>, both HTML."""

    description: str  # the meta description's content, attribute-escaped
    tags: str  # the tags written just before </head>


@dataclass(frozen=True)
class SiteHead:
    """One build's (one language's) site as its pages' heads describe it."""

    site_name: str
    site_description: str
    language: str
    site_languages: tuple[str, ...]  # every language of the site, the default first
    site_url: str | None  # this build's root URL ("…/en/" for English on a two-language site)

    def page(self, url: str, *, title: str, description: str = "", article: bool = False, extra: str = "") -> PageHead:
        """The head of the page at ``url`` (relative to this build's root, as MkDocs writes it):
        ``title`` and ``description`` plain text (the site's description when empty), ``article``
        for a page about one thing at one time (a commit), ``extra`` HTML written after (feeds)."""
        described = description or self.site_description
        tags = [
            _meta("property", "og:title", title),
            _meta("property", "og:description", described) if described else "",
            _meta("property", "og:type", "article" if article else "website"),
        ]
        if self.site_url:
            tags.append(_meta("property", "og:url", self.site_url + url))
        locale = OG_LOCALES.get(self.language)
        if locale:
            tags.append(_meta("property", "og:locale", locale))
        tags.append(_meta("property", "og:site_name", self.site_name))
        tags.append(_meta("name", "twitter:card", "summary"))
        tags.extend(self.alternates(url))
        return PageHead(str(html_text(described)), "".join(tags) + extra)

    def alternates(self, url: str) -> list[str]:
        """The page in every language of the site and for any other (x-default: the default
        language's), by absolute URL. None on a one-language site or without the site's URL."""
        languages = self.site_languages
        if len(languages) < 2 or not self.site_url:
            return []
        root = self.site_url.removesuffix(language_root(self.language, languages))
        links = [(code, root + language_root(code, languages) + url) for code in languages]
        links.append(("x-default", root + url))
        return [_link(code, href) for code, href in links]


def site_head(
    site_name: str,
    site_description: str | None,
    language: str,
    site_languages: Sequence[str] | None,
    site_url: str | None,
) -> SiteHead:
    """The site's head facts; ``site_url`` ends with "/" (MkDocs adds it)."""
    return SiteHead(
        site_name=site_name,
        site_description=site_description or "",
        language=language,
        site_languages=tuple(site_languages or (language,)),
        site_url=site_url or None,
    )


def _meta(attribute: str, name: str, value: str) -> str:
    return str(Markup('<meta %s="%s" content="%s">') % (Markup(attribute), Markup(name), html_text(value)))


def _link(code: str, href: str) -> str:
    return str(Markup('<link rel="%s" hreflang="%s" href="%s">') % (Markup(ALTERNATE_REL), code, html_text(href)))
