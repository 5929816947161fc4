"""What the site adds to MkDocs' files and navigation: the pages in the navigation, the search
page and its client, the site's own stylesheet and scripts (and the theme settings they need);
a site owner's file at any of those paths wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from commit_digest.search.page import ASSETS, SEARCH_PAGE, asset, search_page_markdown
from commit_digest.site import paths
from commit_digest.site.build.theme_files import THEME_SEARCH_PLUGINS, unpublished_theme_files
from commit_digest.site.rendering.assets import SCRIPTS, STYLESHEETS, site_asset
from commit_digest.site.rendering.chrome import CONFIG_SCRIPT, config_script
from commit_digest.site.rendering.i18n import Texts

# Generated pages rendered by MkDocs, in its navigation; every other generated page is framed
# by this plugin (generated_pages.py).
NAV_PAGES = frozenset(
    {
        paths.HOME,
        paths.ARCHIVE_INDEX,
        paths.WEEKS_INDEX,
        paths.PLATFORMS_INDEX,
        paths.SUBSYSTEMS_INDEX,
        paths.REPOSITORIES_INDEX,
        paths.SUBSCRIBE,
        paths.IMPACT_INDEX,
        paths.RELEASES_INDEX,
    }
)


def add_site_assets(config: MkDocsConfig) -> None:
    """The site's own stylesheet and scripts on every page, its sitemap instead of the theme's,
    and the theme's fonts only when they come from the site itself."""
    # No request leaves the site's origin: material loads its fonts from Google unless told not
    # to. Its privacy plugin, when on, downloads them at build time and serves them itself.
    if not _self_hosts_fonts(config):
        config.theme["font"] = False
    # What the site-wide script needs (texts, the search page's URL), loaded just before it.
    if CONFIG_SCRIPT not in config.extra_javascript:
        config.extra_javascript.append(CONFIG_SCRIPT)
    # The product's own stylesheet and script, on every page (served by on_files).
    config.extra_css.extend(path for path in STYLESHEETS if path not in config.extra_css)
    config.extra_javascript.extend(path for path in SCRIPTS if path not in config.extra_javascript)
    # Our own sitemap (on_post_build) lists reused pages too, and carries no build date.
    config.theme.static_templates.discard("sitemap.xml")


def add_site_files(files: Files, config: MkDocsConfig, owned: set[str], language: str) -> None:
    """The search page, its client and the site's own assets; a site owner's file at that path
    wins. The theme's files no page loads are left out."""
    drop_unused_theme_files(files, config)
    if SEARCH_PAGE not in owned:
        files.append(File.generated(config, SEARCH_PAGE, content=search_page_markdown(language)))
    for path in ASSETS:
        if path not in owned:
            files.append(File.generated(config, path, content=asset(path)))
    for path in (*STYLESHEETS, *SCRIPTS):
        if path not in owned:
            files.append(File.generated(config, path, content=site_asset(path)))
    if CONFIG_SCRIPT not in owned:
        script = config_script(language, directory_urls=config.use_directory_urls)
        files.append(File.generated(config, CONFIG_SCRIPT, content=script))


def drop_unused_theme_files(files: Files, config: MkDocsConfig) -> None:
    """Leaves out of the site the theme's files no page loads (site/build/theme_files.py): only
    the theme's own, never a file of the docs or of the site owner's theme folder."""
    own_dirs = [Path(folder).resolve() for folder in config.theme.dirs]
    custom = config.theme.custom_dir
    if custom:
        own_dirs = [folder for folder in own_dirs if folder != Path(custom).resolve()]
    theme_files = {
        file.src_uri: file
        for file in files
        if file.abs_src_path and any(Path(file.abs_src_path).resolve().is_relative_to(d) for d in own_dirs)
    }
    theme_search = any(name in config.plugins for name in THEME_SEARCH_PLUGINS)
    for path in unpublished_theme_files(theme_files, theme_search=theme_search):
        files.remove(theme_files[path])


def navigation(files: Files, language: str, *, several_repositories: bool) -> list[Any]:
    """Home, archive, platforms, subsystems and the site owner's pages; never days or commits."""
    texts = Texts(language)
    nav: list[Any] = [
        {str(texts("nav_home")): paths.HOME},
        {str(texts("nav_archive")): paths.ARCHIVE_INDEX},
        {str(texts("nav_weeks")): paths.WEEKS_INDEX},
        {str(texts("nav_impact")): paths.IMPACT_INDEX},
        {str(texts("nav_releases")): paths.RELEASES_INDEX},
        {str(texts("nav_platforms")): paths.PLATFORMS_INDEX},
        {str(texts("nav_subsystems")): paths.SUBSYSTEMS_INDEX},
    ]
    if several_repositories:
        nav.append({str(texts("nav_repositories")): paths.REPOSITORIES_INDEX})
    if files.get_file_from_path(SEARCH_PAGE) is not None:
        nav.append({str(texts("nav_search")): SEARCH_PAGE})
    nav.append({str(texts("nav_subscribe")): paths.SUBSCRIBE})
    listed = NAV_PAGES | {SEARCH_PAGE}
    own_pages = sorted(
        file.src_uri
        for file in files.documentation_pages()
        if file.src_uri not in listed and not file.src_uri.startswith(paths.GENERATED_PREFIXES)
    )
    return nav + own_pages


def _self_hosts_fonts(config: MkDocsConfig) -> bool:
    """Whether material's privacy plugin is on and fetches external assets (fonts included) at
    build time, so the theme's fonts come from the site itself."""
    privacy = config.plugins.get("material/privacy")
    if privacy is None:
        return False
    options = privacy.config
    return bool(options.get("enabled", True) and options.get("assets", True) and options.get("assets_fetch", True))
