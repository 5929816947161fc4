"""The site's robots.txt: every page may be crawled, but the state a build keeps for the next
one (``paths.STATE_DIR``); the sitemap of each language's build named by its absolute URL.

Written at the root of the default language's build; crawlers read it only at their host's root,
so on a site served under a path (a GitHub project page) it is there for a host that serves
the site at its root.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from commit_digest.site.languages import language_root
from commit_digest.site.paths import STATE_DIR

ROBOTS_PATH = "robots.txt"


def robots_txt(site_url: str | None, site_languages: Sequence[str]) -> str:
    """robots.txt for a site at ``site_url`` (the default language's root, ending with "/";
    None when unknown: no Sitemap line, as a sitemap must be named by its absolute URL)."""
    base = urlsplit(site_url).path if site_url else "/"
    base = base if base.endswith("/") else base + "/"
    roots = [language_root(code, site_languages) for code in site_languages] or [""]
    lines = ["User-agent: *", "Allow: /"]
    lines += [f"Disallow: {base}{root}{STATE_DIR}/" for root in roots]
    if site_url:
        lines.append("")
        lines += [f"Sitemap: {site_url}{root}sitemap.xml" for root in roots]
    return "\n".join(lines) + "\n"
