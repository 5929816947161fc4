"""One site in several languages: where each language's build lives, how its pages link the same
page in the others, which hand-written page variant it shows, and the words of the theme's
chrome a site owner wrote in one language.

The site's default language is at the root; every other language is a whole build of the same
site under its code (``en/`` or ``zh/``). Pure: codes and plain data in, plain data out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from commit_digest.errors import InputError
from commit_digest.site.rendering.i18n import LANGUAGES, Texts

# Palette toggle names the plugin translates (i18n keys); any other name is the owner's and stays.
_PALETTE_KEYS = ("palette_to_dark", "palette_to_light", "palette_to_system")


def language_root(code: str, site_languages: Sequence[str]) -> str:
    """Where ``code``'s build lives relative to the site's root: "" for the default (the first)."""
    return "" if code == site_languages[0] else f"{code}/"


def alternates(current: str, site_languages: Sequence[str]) -> list[dict[str, str]]:
    """``config.extra.alternate`` for ``current``'s build: every language's root, relative to this
    build's root (the theme resolves them against the page). Empty for a one-language site."""
    if len(site_languages) < 2:
        return []
    up = "../" if language_root(current, site_languages) else ""
    return [
        {
            "name": Texts(code)("language_name").unescape(),
            "lang": code,
            "link": "./" if code == current else up + language_root(code, site_languages),
        }
        for code in site_languages
    ]


def page_variant(src_uri: str) -> tuple[str, str] | None:
    """``about.en.md`` -> ("about.md", "en"): a hand-written page's variant in one language."""
    stem, dot, extension = src_uri.rpartition(".")
    base, _, code = stem.rpartition(".")
    if not dot or not base or code not in LANGUAGES or extension != "md" or base.endswith("/"):
        return None
    return f"{base}.md", code


def site_name(names: Mapping[str, Any] | None, language: str, *, option: str = "site_name") -> str | None:
    """A per-language option's text for ``language`` (``site_name``, ``site_description``), None
    when it gives none."""
    if not names:
        return None
    unknown = sorted(str(code) for code in names if code not in LANGUAGES)
    if unknown:
        raise InputError(f"{option}: unknown language {', '.join(unknown)} (expected {' or '.join(LANGUAGES)})")
    name = names.get(language)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InputError(f"{option}.{language}: expected text, got {name!r}")
    return name


def localized_palette(palette: Any, language: str) -> Any:
    """The theme's palette with the toggle names this table knows (in any language) worded in
    ``language``; a name the owner made up stays as written."""
    if not isinstance(palette, list):
        return palette
    known = {str(Texts(code)(key)): key for code in LANGUAGES for key in _PALETTE_KEYS}
    texts = Texts(language)
    result = []
    for scheme in palette:
        toggle = scheme.get("toggle") if isinstance(scheme, dict) else None
        key = known.get(toggle.get("name")) if isinstance(toggle, dict) else None
        if key is not None:
            scheme = {**scheme, "toggle": {**toggle, "name": str(texts(key))}}
        result.append(scheme)
    return result
