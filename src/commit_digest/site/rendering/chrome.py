"""What the theme's chrome needs from the digest: the header search box's words and the search
page's URL (a small generated script every page loads before ``assets/digest.js``), and the 404
page's words and links (``config.extra`` for the theme's 404 template).

Pure: language, URL style and the index in; plain data out. URLs are relative to the site's
root; the theme resolves them (``| url``), the header script against its own address.
"""

from __future__ import annotations

import json

from markupsafe import Markup

from commit_digest.search.page import SEARCH_PAGE
from commit_digest.site import paths
from commit_digest.site.model.index import SiteIndex
from commit_digest.site.rendering.i18n import Texts
from commit_digest.store.sample_note import SampleNote

CONFIG_SCRIPT = "assets/digest-config.js"
# config.extra key the theme's templates read (docs/overrides/404.html).
EXTRA_KEY = "commit_digest"

_HEADER_TEXTS = {
    # name in the script: key in the i18n table
    "label": "search_label",
    "placeholder": "header_search_placeholder",
    "open": "header_search_open",
    "hint": "header_search_hint",
    "all": "header_search_all",
    "empty": "search_empty",
    "searching": "search_searching",
    "failed": "search_failed",
}


def config_script(language: str, *, directory_urls: bool) -> str:
    """``assets/digest-config.js``: plain text (the script sets it with textContent), as JSON."""
    texts = Texts(language)
    data = {
        "language": language,
        "search": paths.url(SEARCH_PAGE, directory_urls),
        "texts": {name: texts(key).unescape() for name, key in _HEADER_TEXTS.items()},
    }
    return (
        "/* commit-digest: what assets/digest.js needs to know about this site; written by the build. */\n"
        f"window.commitDigest = {json.dumps(data, ensure_ascii=False, sort_keys=True)};\n"
    )


def chrome_context(index: SiteIndex, language: str, *, directory_urls: bool) -> dict[str, object]:
    """``config.extra.commit_digest``: the 404 page's words (trusted HTML from the i18n table)
    and links (site-relative: the theme makes them absolute on its 404 page)."""
    texts = Texts(language)
    newest = index.days[0].date if index.days else None  # days are newest first
    return {
        # The line every page shows above its content when the site shows sample data.
        "sample": sample_line(index.sample, texts),
        "search_url": paths.url(SEARCH_PAGE, directory_urls),
        "archive_url": paths.url(paths.ARCHIVE_INDEX, directory_urls),
        "home_url": paths.url(paths.HOME, directory_urls),
        "newest_day_url": paths.url(paths.day_page(newest), directory_urls) if newest else None,
        "texts": {
            "title": texts("not_found_title"),
            "text": texts("not_found_text"),
            "newest": texts("not_found_newest", date=newest.isoformat()) if newest else Markup(""),
            "archive": texts("not_found_archive"),
            "home": texts("nav_home"),
            "search_label": texts("search_label"),
            "search_placeholder": texts("header_search_placeholder"),
            "search_submit": texts("nav_search"),
        },
    }


def sample_line(note: SampleNote | None, texts: Texts) -> Markup | None:
    """What the sample is and whose analyses it shows, in one line (None for real data)."""
    if note is None:
        return None
    analyses = (
        texts("sample_analyses_model", count=note.model_analyses)
        if note.model_analyses
        else texts("sample_analyses_offline")
    )
    return texts(
        "sample_line",
        repository=note.repository,
        first=note.first_day.isoformat(),
        last=note.last_day.isoformat(),
        count=note.commits,
        invented=len(note.invented),
        analyses=analyses,
    )
