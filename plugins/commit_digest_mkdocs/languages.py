"""One site in several languages, on the MkDocs side: each language's build gets its site name,
palette toggle names and language selector (``commit_digest.site.languages`` decides what), and
shows the hand-written page variant of its language (``about.en.md`` at about/)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from commit_digest.site.languages import alternates, localized_palette, page_variant, site_name

# The language selector linking the same page (partials/alternate.html), shipped with the plugin.
TEMPLATES = Path(__file__).parent / "templates"


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
    """The theme's words and the language selector of ``language``'s build (raises InputError)."""
    name = site_name(site_names, language)
    if name is not None:
        config.site_name = name
    description = site_name(site_descriptions, language, option="site_description")
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
