"""The site's own stylesheet and script, served beside the pages on every page.

They belong to the product, not to a site owner's docs/: a site built from any mkdocs.yml gets
the badges, chips, filters and controls the generated pages use. A site owner's file at the
same path wins (as with pages). Each is served as one file (one request, and one <link> or
<script> on each of tens of thousands of pages), made of sources kept apart by what they style.
"""

from __future__ import annotations

from importlib import resources

_SOURCES: dict[str, tuple[str, ...]] = {
    "assets/digest.css": ("digest.css", "digest-commit.css", "digest-charts.css"),
    "assets/digest.js": ("digest.js", "digest-copy.js"),
}
STYLESHEETS: tuple[str, ...] = ("assets/digest.css",)
SCRIPTS: tuple[str, ...] = ("assets/digest.js",)


def asset_source(name: str) -> str:
    """One source file of the served assets (``digest-charts.css``)."""
    return resources.files("commit_digest.site.rendering").joinpath("assets", name).read_text(encoding="utf-8")


def site_asset(path: str) -> str:
    """The served text of one of ``STYLESHEETS`` or ``SCRIPTS`` (``assets/<name>``): its sources, in order."""
    return "\n".join(asset_source(name) for name in _SOURCES[path])
