"""The theme's static files no page of the site loads, which a build does not publish.

Material ships its search (the lunr library, its language files and segmenters, the search
worker) and the source maps of its minified scripts and stylesheets: 2.3 MB in 40 files, in
every language's build. The site's own search replaces the theme's, and a source map is read
only by a browser's developer tools. Pure: the theme's file paths in, those to leave out out.
"""

from __future__ import annotations

from collections.abc import Iterable

# Used only by the theme's own search plugin ("search" or "material/search").
_THEME_SEARCH_FILES = ("assets/javascripts/lunr/", "assets/javascripts/workers/search.")
THEME_SEARCH_PLUGINS = frozenset({"search", "material/search"})


def unpublished_theme_files(paths: Iterable[str], *, theme_search: bool) -> list[str]:
    """Of the theme's own files at ``paths`` (site-relative, "/"-separated), those no page
    loads: source maps, and the theme's search files unless ``theme_search`` is on."""
    return [
        path
        for path in paths
        if path.endswith(".map") or (not theme_search and path.startswith(_THEME_SEARCH_FILES))
    ]
