"""The slim frame of generated pages on mkdocs-material: its templates (theme/), the shared icon
sprite and palette script it refers to, and the helpers its template calls.

Tens of thousands of day, commit and label pages share one frame; material's own page template
repeats inline SVG icons, the palette script and the full script configuration on each. The slim
template (theme/digest-page.html) shows the same header, tabs, drawer, table of contents and
footer with references to shared files instead. Another theme keeps its own main.html.
"""

from __future__ import annotations

import json
import logging
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

logger = logging.getLogger("mkdocs.plugins.commit_digest.slim_frame")

THEME_DIR = Path(__file__).parent / "theme"
SLIM_TEMPLATE = "digest-page.html"
SLIM_TOC = "digest-toc.html"
PALETTE_SCRIPT = "assets/digest-palette.js"
SCOPE_SCRIPT = "assets/digest-scope.js"
EXTRA_KEY = "commit_digest_frame"

_SCRIPT = re.compile(r"<script>(.*)</script>", re.DOTALL)
# The theme's own stylesheets and script, by the hashed names its base template links.
_THEME_ASSET = re.compile(r"'(assets/(?:stylesheets/(?:main|palette)|javascripts/bundle)\.[0-9a-f]+\.min\.(?:css|js))'")
# What material's page shows that the slim frame does not: with any of them, material's own
# template frames every page.
_EXTRAS_SHOWN_BY_MATERIAL = ("analytics", "consent", "version", "scope", "annotate", "tags")


def slim_frame_configured(config: MkDocsConfig) -> bool:
    """Whether the site is configured for the slim frame: material as this site configures it
    (tabs, no Google fonts, no analytics, consent, version selector or announcement), and no
    page template of the site owner's (their main.html frames the generated pages too, as it
    does every other page)."""
    if config.theme.name != "material":
        return False
    custom = config.theme.custom_dir
    if custom and any((Path(custom) / name).is_file() for name in ("main.html", "base.html")):
        return False
    features = config.theme.get("features") or []
    extra = config.extra
    return (
        "navigation.tabs" in features
        and "navigation.tabs.sticky" not in features
        and "announce.dismiss" not in features
        and config.theme.get("font") is False
        and not any(extra.get(name) for name in _EXTRAS_SHOWN_BY_MATERIAL)
    )


def uses_slim_frame(config: MkDocsConfig, nav: Any) -> bool:
    """Whether this build's generated pages get the slim frame: configured for it, its shared
    files made (``add_frame_files``: the theme was one it can read), and a navigation without
    sections."""
    return slim_frame_configured(config) and config.extra.get(EXTRA_KEY) is not None and FrameHelpers.flat(nav)


def add_slim_frame(config: MkDocsConfig) -> None:
    """The slim templates after every other template folder: their names are the plugin's own,
    and a site owner's custom_dir can still replace them."""
    if slim_frame_configured(config) and str(THEME_DIR) not in config.theme.dirs:
        config.theme.dirs.append(str(THEME_DIR))


class FrameHelpers:
    """What the slim template calls: an icon by its role, and whether the navigation is flat."""

    def __init__(self, icons: dict[str, Icon], stylesheets: list[str], bundle: str) -> None:
        self._icons = icons
        self.stylesheets = stylesheets  # the theme's own, before the site's extra_css
        self.bundle = bundle  # the theme's script
        # The search page's stylesheets and script instead (search_frame.py), once made.
        self.lean: Any = None

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
    if not slim_frame_configured(config):
        return
    env = config.theme.get_env()
    try:
        icons = {role: _icon(env, name) for role, name in _icon_names(config).items()}
        assets = _theme_assets(env)
    except PluginError as error:
        # Another version of the theme than the frame was written for: its own template frames
        # every page, as on any other theme.
        logger.warning("%s; the generated pages keep the theme's own template", error)
        return
    stylesheets = [path for path in assets if "/main." in path or ("/palette." in path and config.theme.get("palette"))]
    bundle = next(path for path in assets if path.endswith(".js"))
    config.extra[EXTRA_KEY] = FrameHelpers(icons, stylesheets, bundle)
    palette = config.theme.get("palette")
    scripts = {SCOPE_SCRIPT: _scope_script(env, config)}
    if isinstance(palette, list) and palette:
        scripts[PALETTE_SCRIPT] = _palette_script(env, config, icons)
    for path, content in [(SPRITE_PATH, sprite_document(icons.values())), *scripts.items()]:
        if path not in owned:
            files.append(File.generated(config, path, content=content))


def _icon_names(config: MkDocsConfig) -> dict[str, str]:
    """The icon shown in each role, as material chooses it from the theme's settings."""
    chosen = config.theme.get("icon") or {}
    names = {
        "logo": chosen.get("logo") or "material/library",
        "menu": chosen.get("menu") or "material/menu",
        "repo": chosen.get("repo") or "fontawesome/brands/git-alt",
        "alternate": chosen.get("alternate") or "material/translate",
        "top": chosen.get("top") or "material/arrow-up",
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


def _theme_assets(env: jinja2.Environment) -> list[str]:
    """The theme's main and palette stylesheets and its script, as its base template names them."""
    source = env.loader.get_source(env, "base.html")[0]  # type: ignore[union-attr]
    found = list(dict.fromkeys(_THEME_ASSET.findall(source)))
    if len(found) != 3:
        raise PluginError(f"commit-digest: the theme's base.html names {found} as its assets; expected three")
    return found


def _scope_script(env: jinja2.Environment, config: MkDocsConfig) -> str:
    """Material's storage helpers, scoped to the site's root as on its pages (from a shared file
    under assets/, the root is the folder above the script's own address), then material's script
    configuration, the same for every generated page: the site's root, the theme's features and
    the words its components show."""
    rendered = env.get_template("partials/javascripts/base.html").render(config=config, base_url="..")
    found = _SCRIPT.search(rendered)
    marker = 'new URL("..",location)'
    if found is None or marker not in found.group(1):
        raise PluginError("commit-digest: the theme's storage script has an unexpected form")
    words = env.from_string(
        '{% import "partials/language.html" as lang with context %}'
        '{{ {"clipboard.copy": lang.t("clipboard.copy"), "clipboard.copied": lang.t("clipboard.copied")} | tojson }}'
    ).render(config=config)
    settings = {"features": list(config.theme.get("features") or []), "translations": json.loads(words)}
    storage = found.group(1).replace(marker, 'new URL("..",document.currentScript.src)').strip()
    configuration = (
        '(function(){var c=document.createElement("script");c.id="__config";c.type="application/json";'
        f"c.textContent=JSON.stringify(Object.assign({{base:__md_scope.href}},{json.dumps(settings)}));"
        "document.head.appendChild(c)})();"
    )
    # Marks the document as scripted from its head: what scripts build keeps its place from the
    # first paint (digest.css), so nothing moves when they run.
    scripted = 'document.documentElement.classList.add("digest-js");'
    # A reader's platform (kept by digest.js under this key, or in the address): the page's
    # platform-dependent parts wait unseen until digest.js has applied it (digest.css), instead of
    # painting every platform's news and then moving it.
    choosing = (
        'try{if(new URLSearchParams(location.search).get("platform")||localStorage.getItem("commit-digest:platform"))'
        'document.documentElement.setAttribute("data-digest-choosing","")}catch(e){}'
    )
    return f"{storage};\n{configuration}\n{scripted}\n{choosing}\n"


def _palette_script(env: jinja2.Environment, config: MkDocsConfig, icons: dict[str, Icon]) -> str:
    """The header's palette toggle, built by script (palette-form.js), then material's script
    that restores the reader's chosen colours before the page paints."""
    options = []
    for number, option in enumerate(config.theme.get("palette") or []):
        entry = {
            "media": option.get("media", ""),
            "scheme": str(option.get("scheme") or "default").replace(" ", "-"),
            "primary": str(option.get("primary") or "indigo").replace(" ", "-"),
            "accent": str(option.get("accent") or "indigo").replace(" ", "-"),
        }
        toggle, icon = option.get("toggle"), icons.get(f"palette_{number}")
        if toggle and icon is not None:
            entry["toggle"] = {"name": str(toggle.get("name", "")), "icon": icon.id, "viewBox": icon.view_box}
        options.append(entry)
    form = (THEME_DIR / "palette-form.js").read_text(encoding="utf-8")
    form = form.replace("/* PALETTE_OPTIONS */", json.dumps(options, ensure_ascii=False))
    rendered = env.get_template("partials/javascripts/palette.html").render()
    found = _SCRIPT.search(rendered)
    if found is None:
        raise PluginError("commit-digest: the theme's palette script has an unexpected form")
    return form + found.group(1).strip() + "\n"
