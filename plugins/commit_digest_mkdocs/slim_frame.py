"""The slim frame of generated pages on mkdocs-material: its templates (theme/), the shared icon
sprite and palette script it refers to, and the helpers its template calls.

Tens of thousands of day, commit and label pages share one frame; material's own page template
repeats inline SVG icons, the palette script and the full script configuration on each. The slim
template (theme/digest-page.html) shows the same header, tabs, drawer, table of contents and
footer with references to shared files instead. Another theme keeps its own main.html.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from commit_digest.site.rendering.icon_sprite import (
    SPRITE_PATH,
    Icon,
    IconError,
    icon_reference,
    parse_icon,
    sprite_document,
)

THEME_DIR = Path(__file__).parent / "theme"
SLIM_TEMPLATE = "digest-page.html"
SLIM_TOC = "digest-toc.html"
PALETTE_SCRIPT = "assets/digest-palette.js"
EXTRA_KEY = "commit_digest_frame"

_SCRIPT = re.compile(r"<script>(.*)</script>", re.DOTALL)


def uses_slim_frame(config: MkDocsConfig) -> bool:
    """Material's pages, unless the site owner overrides its page template: their main.html then
    frames the generated pages too, as it does every other page."""
    custom = config.theme.custom_dir
    return config.theme.name == "material" and not (custom and (Path(custom) / "main.html").is_file())


def add_slim_frame(config: MkDocsConfig) -> None:
    """The slim templates after every other template folder: their names are the plugin's own,
    and a site owner's custom_dir can still replace them."""
    if uses_slim_frame(config) and str(THEME_DIR) not in config.theme.dirs:
        config.theme.dirs.append(str(THEME_DIR))


class FrameHelpers:
    """What the slim template calls: an icon by its role, and whether the navigation is flat."""

    def __init__(self, icons: dict[str, Icon]) -> None:
        self._icons = icons

    def icon(self, role: str, base_url: str) -> Markup:
        icon = self._icons.get(role)
        if icon is None:
            return Markup("")
        return icon_reference(icon, base_url.rstrip("/") + "/" + SPRITE_PATH)

    @staticmethod
    def flat(nav: Any) -> bool:
        """A navigation without sections: the slim tabs and drawer list it; one with sections
        is drawn by material's own partials."""
        return all(not getattr(item, "children", None) for item in nav.items)


def add_frame_files(files: Files, config: MkDocsConfig, owned: set[str]) -> None:
    """The sprite of the icons the slim frame shows and material's palette script as a shared
    file; a site owner's file at either path wins."""
    if not uses_slim_frame(config):
        return
    env = config.theme.get_env()
    icons = {role: _icon(env, name) for role, name in _icon_names(config).items()}
    config.extra[EXTRA_KEY] = FrameHelpers(icons)
    if SPRITE_PATH not in owned:
        files.append(File.generated(config, SPRITE_PATH, content=sprite_document(icons.values())))
    if PALETTE_SCRIPT not in owned:
        files.append(File.generated(config, PALETTE_SCRIPT, content=_palette_script(env)))


def _icon_names(config: MkDocsConfig) -> dict[str, str]:
    """The icon shown in each role, as material chooses it from the theme's settings."""
    chosen = config.theme.get("icon") or {}
    names = {
        "logo": chosen.get("logo") or "material/library",
        "menu": chosen.get("menu") or "material/menu",
        "repo": chosen.get("repo") or "fontawesome/brands/git-alt",
        "alternate": chosen.get("alternate") or "material/translate",
    }
    palette = config.theme.get("palette")
    if isinstance(palette, list):
        for number, option in enumerate(palette):
            toggle = option.get("toggle") if isinstance(option, dict) else None
            if toggle and toggle.get("icon"):
                names[f"palette_{number}"] = toggle["icon"]
    return names


def _icon(env: jinja2.Environment, name: str) -> Icon:
    try:
        source = env.loader.get_source(env, f".icons/{name}.svg")[0]  # type: ignore[union-attr]
        return parse_icon(name, source)
    except (jinja2.TemplateNotFound, IconError) as error:
        raise PluginError(f"commit-digest: the theme's icon {name!r} cannot be used: {error}") from error


def _palette_script(env: jinja2.Environment) -> str:
    """Material's palette script (restores the reader's chosen colours before the page paints)."""
    rendered = env.get_template("partials/javascripts/palette.html").render()
    found = _SCRIPT.search(rendered)
    if found is None:
        raise PluginError("commit-digest: the theme's palette script has an unexpected form")
    return found.group(1).strip() + "\n"
