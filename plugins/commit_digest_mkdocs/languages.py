"""One site in several languages, on the MkDocs side: each language's build gets its site name,
palette toggle names and language selector (``commit_digest.site.languages`` decides what), and
shows the hand-written page variant of its language (``about.en.md`` at about/).

The top-level ``site_name`` and ``site_description`` name the site; the plugin block's
``site_name: {en: ...}`` names it in a language where it differs, and a language that mapping
does not name takes the top-level one. So a site owner changes the top-level name, and the
plugin block names only the languages whose name is not that one."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from commit_digest.site.languages import alternates, localized_palette, page_variant, site_name

# The language selector linking the same page (partials/alternate.html), shipped with the plugin.
TEMPLATES = Path(__file__).parent / "templates"

logger = logging.getLogger("mkdocs.plugins.commit_digest.languages")


class LanguageSelector:
    """``config.extra.alternate`` of a site in several languages. Truthy, so material's header
    includes partials/alternate.html (ours), which lists ``links``. Not iterable, so material's
    base.html writes no ``<link rel="alternate">`` per language: from those, material's script
    downloads every language's whole sitemap.xml on each page view, and turns a click on the
    selector into a visit to that language's home when the page is not in that sitemap (as on a
    local preview, or when site_url is not the address the site is served at)."""

    def __init__(self, links: list[dict[str, str]]) -> None:
        self.links = links

    def __bool__(self) -> bool:
        return True


def localize_chrome(
    config: MkDocsConfig,
    *,
    language: str,
    site_languages: Sequence[str],
    site_names: Mapping[str, Any] | None,
    site_descriptions: Mapping[str, Any] | None = None,
) -> None:
    """The site's name and description, the theme's words and the language selector of
    ``language``'s build (raises InputError)."""
    name = site_name(site_names, language)
    description = site_name(site_descriptions, language, option="site_description")
    _say_which_name(language, name, description, config.site_name, config.site_description)
    if name is not None:
        config.site_name = name
    if description is not None:
        config.site_description = description
    if "palette" in config.theme:
        config.theme["palette"] = localized_palette(config.theme["palette"], language)
    links = alternates(language, site_languages)
    if not links:
        return
    config.extra["alternate"] = LanguageSelector(links)
    dirs = config.theme.dirs
    if str(TEMPLATES) not in dirs:
        # After the owner's custom_dir (their own alternate.html wins), before the theme's.
        custom = config.theme.custom_dir
        dirs.insert(dirs.index(custom) + 1 if custom in dirs else 0, str(TEMPLATES))


def _say_which_name(
    language: str, name: str | None, description: str | None, top_name: str, top_description: str | None
) -> None:
    """One line (information, not a warning: strict builds fail on those) when the plugin
    block's name or description for this language is not the top-level one it takes the place of."""
    renamed = name is not None and name != top_name
    redescribed = description is not None and description != top_description
    if renamed:
        logger.info(
            "commit-digest: the %s site is named %r by plugins.commit-digest site_name.%s, not %r by the "
            "top-level site_name: the plugin block's name for a language comes first%s",
            language,
            name,
            language,
            top_name,
            f" (its site_description.{language} too)" if redescribed else "",
        )
    elif redescribed:
        logger.info(
            "commit-digest: the %s site's description is plugins.commit-digest site_description.%s, not the "
            "top-level site_description: the plugin block's text for a language comes first",
            language,
            language,
        )


def choose_page_variants(files: Files, config: MkDocsConfig, language: str) -> None:
    """A page's variant in this build's language (``about.en.md``) takes the place of the page
    (``about.md``): same URL, so links and the navigation find it. Variants in other languages
    are left out. The variant keeps its origin, so a hand-written one stays trusted."""
    for variant in [file for file in files if file.is_documentation_page()]:
        found = page_variant(variant.src_uri)
        if found is None:
            continue
        files.remove(variant)
        base, code = found
        if code != language:
            continue
        replaced = files.get_file_from_path(base)
        if replaced is not None:
            files.remove(replaced)
        if variant.abs_src_path is not None:
            page = File.generated(config, base, abs_src_path=variant.abs_src_path, inclusion=variant.inclusion)
        else:
            page = File.generated(config, base, content=variant.content_bytes, inclusion=variant.inclusion)
        page.generated_by = variant.generated_by
        files.append(page)
