"""The site's own stylesheet and script, served beside the pages on every page.

They belong to the product, not to a site owner's docs/: a site built from any mkdocs.yml gets
the badges, chips, filters and controls the generated pages use. A site owner's file at the
same path wins (as with pages).
"""

from __future__ import annotations

from importlib import resources

STYLESHEETS: tuple[str, ...] = ("assets/digest.css", "assets/digest-commit.css", "assets/digest-charts.css")
SCRIPTS: tuple[str, ...] = ("assets/digest.js", "assets/digest-copy.js")


def site_asset(path: str) -> str:
    """The text of one of ``STYLESHEETS`` or ``SCRIPTS`` (``assets/<name>``)."""
    name = path.removeprefix("assets/")
    return resources.files("commit_digest.site.rendering").joinpath("assets", name).read_text(encoding="utf-8")
