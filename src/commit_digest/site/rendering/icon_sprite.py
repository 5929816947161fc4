"""The theme's icons as one shared SVG sprite instead of inline SVG on every page.

A generated page's frame shows the same few icons (the menu, the logo, the repository, the
palette toggles); inline, they weigh about 3 KB on each of tens of thousands of pages. Each
icon becomes a ``<symbol>`` of one file the browser fetches once, and a page refers to it with
``<svg><use href="…#id"/></svg>``. The ``<svg>`` element stays, so the theme's stylesheet sizes
and colours it as before (the symbols' paths set no fill: they take the text colour).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

SPRITE_PATH = "assets/digest-icons.svg"

# An icon file: one <svg> element, after an XML declaration or comments if its editor wrote them.
_SVG = re.compile(r"^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<svg\b([^>]*)>(.*)</svg>\s*$", re.DOTALL)
_VIEW_BOX = re.compile(r"""\bviewBox\s*=\s*["']([^"']+)["']""")


class IconError(ValueError):
    """An icon's file is not one <svg> element with a viewBox."""


@dataclass(frozen=True)
class Icon:
    id: str  # the symbol's id in the sprite
    view_box: str
    body: str  # the SVG's children (paths, and a licence comment where the icon set has one)


def icon_id(name: str) -> str:
    """A stable id for an icon's name (``material/menu`` → ``material-menu``)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")


def parse_icon(name: str, svg: str) -> Icon:
    """The icon named ``name`` from its SVG file's text (raises IconError)."""
    whole = _SVG.match(svg)
    view_box = _VIEW_BOX.search(whole.group(1)) if whole else None
    if whole is None or view_box is None:
        raise IconError(f"icon {name!r} is not one <svg> element with a viewBox")
    return Icon(id=icon_id(name), view_box=view_box.group(1), body=whole.group(2).strip())


def sprite_document(icons: Iterable[Icon]) -> str:
    """The sprite: one ``<symbol>`` per distinct icon, in a stable order (same icons, same bytes)."""
    symbols = {icon.id: icon for icon in icons}
    lines = ['<svg xmlns="http://www.w3.org/2000/svg">']
    lines += [
        f'<symbol id="{escape(icon.id)}" viewBox="{escape(icon.view_box)}">{icon.body}</symbol>'
        for icon in sorted(symbols.values(), key=lambda icon: icon.id)
    ]
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def icon_reference(icon: Icon, sprite_url: str) -> Markup:
    """The markup a page shows for ``icon``: an <svg> using its symbol in the sprite at ``sprite_url``."""
    return Markup('<svg viewBox="{}" aria-hidden="true"><use href="{}#{}"/></svg>').format(
        icon.view_box, sprite_url, icon.id
    )
