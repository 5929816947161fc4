"""The lean slim frame of the search page: the slim frame (theme/digest-page.html) without
material's script, with a stylesheet of only the theme's rules that page can match, and the
site's own stylesheet (digest.css, the rules of every kind of page) cut the same way.

The search page is the one page a reader loads before the search index: material's bundle.js
(114 KB) and main.css (137 KB) were two thirds of its weight. Its header box, keyboard and
filters are the site's own scripts; the drawer and tabs of the slim frame are CSS; what
material's script did there (the palette toggle, the scripted and focus-visible marks) is
theme/lean-frame.js.
The stylesheet is derived at build time from the installed theme's own (site/build/page_styles.py),
so it follows the theme's version.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

import jinja2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from commit_digest.search.page import QUERY_SCRIPT, SCRIPT, SEARCH_PAGE, asset, search_page_markdown
from commit_digest.site.build.page_styles import (
    PageVocabulary,
    markup_classes,
    markup_elements,
    page_stylesheet,
    script_words,
)
from commit_digest.site.build.published_scripts import published_script
from commit_digest.site.rendering.assets import SCRIPTS, STYLESHEETS, site_asset
from commit_digest.site.rendering.chrome import CONFIG_SCRIPT
from commit_digest_mkdocs.slim_frame import (
    EXTRA_KEY,
    PALETTE_SCRIPT,
    SCOPE_SCRIPT,
    SLIM_TEMPLATE,
    THEME_DIR,
    FrameHelpers,
)

logger = logging.getLogger("mkdocs.plugins.commit_digest.search_frame")

LEAN_STYLESHEET = "assets/digest-search-theme.css"
LEAN_SCRIPT = "assets/digest-lean-frame.js"
LEAN_META = "commit_digest_lean"  # the page meta key that asks digest-page.html for the lean frame
# A template's static includes, imports and parents (an icon's include is built from its name:
# icons carry no classes).
_INCLUDED = re.compile(r"""\{%-?\s*(?:include|import|extends)\s+["']([^"']+\.html)["']""")

# What the page's Markdown makes around its raw HTML: its title, paragraphs, the title's permalink;
# the icons are references into the sprite (icon_sprite.icon_reference), not in the templates' text.
_MARKDOWN_ELEMENTS = frozenset({"h1", "p", "a", "svg", "use"})


@dataclass(frozen=True)
class LeanFrame:
    """What the slim template links instead of the theme's stylesheets and script, and instead
    of each of the site's stylesheets (``replaced``: its path -> the path of its cut), in its place."""

    stylesheets: list[str]
    script: str
    replaced: dict[str, str]


def lean_path(path: str) -> str:
    """Where the search page's cut of one of the site's stylesheets is: assets/digest-lean.css."""
    return path.removesuffix(".css") + "-lean.css"


def frame_search_page(page: Page, config: MkDocsConfig) -> None:
    """The plugin's search page in the lean slim frame, when its files were made."""
    frame = config.extra.get(EXTRA_KEY)
    if page.file.src_uri != SEARCH_PAGE or not isinstance(frame, FrameHelpers) or frame.lean is None:
        return
    page.meta["template"] = SLIM_TEMPLATE
    page.meta[LEAN_META] = True
    # The slim template prints the title as given (a generated page's arrives escaped); this one
    # is the navigation's title of the page.
    page.meta.setdefault("title", html.escape(page.title or ""))


def add_search_page_frame(files: Files, config: MkDocsConfig, owned: set[str], language: str) -> None:
    """The search page's stylesheet and script, when the slim frame is in use (its helpers were
    made, add_frame_files) and the search page and both paths are the plugin's own."""
    frame = config.extra.get(EXTRA_KEY)
    if not isinstance(frame, FrameHelpers) or owned & {SEARCH_PAGE, LEAN_STYLESHEET, LEAN_SCRIPT}:
        return
    scripts = [asset(QUERY_SCRIPT), asset(SCRIPT), *(site_asset(path) for path in SCRIPTS)]
    scripts += [(THEME_DIR / "palette-form.js").read_text(encoding="utf-8"), _lean_script()]
    # The frame's shared scripts mark the page too (digest-scope.js: html.digest-js, which keeps
    # the header box's place from the first paint).
    for path in (SCOPE_SCRIPT, PALETTE_SCRIPT, CONFIG_SCRIPT):
        shared = files.get_file_from_path(path)
        if shared is not None:
            scripts.append(shared.content_string)
    # The site's stylesheets a site owner has not replaced (theirs is linked as it is).
    site_styles = {path: site_asset(path) for path in STYLESHEETS if not owned & {path, lean_path(path)}}
    _add_lean_files(files, config, frame, search_page_markdown(language), scripts, site_styles)


def _add_lean_files(
    files: Files,
    config: MkDocsConfig,
    frame: FrameHelpers,
    page_markup: str,
    scripts: Iterable[str],
    site_styles: dict[str, str],
) -> None:
    """``page_markup`` is the page's own HTML, ``scripts`` the texts of every script that builds
    markup on it, ``site_styles`` the site's stylesheets to cut (path -> text)."""
    env = config.theme.get_env()
    try:
        themes = [_source(env, path) for path in frame.stylesheets]
        templates = _template_sources(env, SLIM_TEMPLATE)
    except jinja2.TemplateNotFound as error:
        logger.warning("commit-digest: the theme's %s cannot be read; the search page keeps its full frame", error)
        return
    markup = [*templates, page_markup]
    words = script_words(scripts)
    classes = markup_classes(markup) | words | _content_classes(config)
    elements = markup_elements(markup) | {word.lower() for word in words} | _MARKDOWN_ELEMENTS
    vocabulary = PageVocabulary(
        classes=frozenset(classes), elements=frozenset(elements), colors=frozenset(_palette_colors(config))
    )
    files.append(File.generated(config, LEAN_STYLESHEET, content=page_stylesheet(themes, vocabulary)))
    # Each is linked where the site's own stood, so the cascade with a site owner's extra_css
    # stays as on every other page; digest.css is render-blocking, and a third of it is the
    # search page's (30 KB, 7.5 gzipped, become 10 and 2.4).
    for path, css in site_styles.items():
        files.append(File.generated(config, lean_path(path), content=page_stylesheet([css], vocabulary)))
    files.append(File.generated(config, LEAN_SCRIPT, content=_lean_script()))
    replaced = {path: lean_path(path) for path in site_styles}
    frame.lean = LeanFrame(stylesheets=[LEAN_STYLESHEET], script=LEAN_SCRIPT, replaced=replaced)


def _lean_script() -> str:
    """theme/lean-frame.js as published (minified)."""
    return published_script((THEME_DIR / "lean-frame.js").read_text(encoding="utf-8"))


def _source(env: jinja2.Environment, path: str) -> str:
    return env.loader.get_source(env, path)[0]  # type: ignore[union-attr]


def _template_sources(env: jinja2.Environment, name: str) -> list[str]:
    """The template and every template it includes, imports or extends (material's partials)."""
    seen: dict[str, str] = {}
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen[current] = _source(env, current)
        pending.extend(_INCLUDED.findall(seen[current]))
    return list(seen.values())


def _content_classes(config: MkDocsConfig) -> set[str]:
    """What the site's Markdown adds to a page's own HTML: the headings' permalinks."""
    toc = config.mdx_configs.get("toc") or {}
    if not toc.get("permalink"):
        return set()
    return set(str(toc.get("permalink_class", "headerlink")).split())


def _palette_colors(config: MkDocsConfig) -> set[str]:
    """The primary and accent colours the site's palette options use (material's default indigo
    when an option names none)."""
    palette = config.theme.get("palette") or {}
    options = palette if isinstance(palette, list) else [palette]
    colors = {"indigo"}
    for option in options:
        if isinstance(option, dict):
            for key in ("primary", "accent"):
                colors.add(str(option.get(key) or "indigo").replace(" ", "-"))
    return colors
