"""Where each generated page lives (its Markdown source path) and relative links between them.

Links are built here from dates, hex shas and label ids only, never from untrusted text.
"""

from __future__ import annotations

import posixpath
from datetime import date

from markupsafe import Markup

HOME = "index.md"
ARCHIVE_INDEX = "archive/index.md"
PLATFORMS_INDEX = "platforms/index.md"
SUBSYSTEMS_INDEX = "subsystems/index.md"
GENERATED_PREFIXES = ("days/", "commits/", "archive/", "platforms/", "subsystems/")


def day_page(day: date) -> str:
    return f"days/{day.isoformat()}.md"


def commit_page(sha: str) -> str:
    return f"commits/{sha[:12]}.md"


def month_page(month: str) -> str:
    return f"archive/{month}.md"


def label_page(kind: str, label_id: str, page: int = 1) -> str:
    """``kind`` is "platforms" or "subsystems"; page 1 is the label's index, later pages follow it."""
    return f"{kind}/{label_id}/index.md" if page == 1 else f"{kind}/{label_id}/page-{page}.md"


def link(from_page: str, to_page: str) -> Markup:
    """A relative link target MkDocs resolves (and checks in strict mode)."""
    base = posixpath.dirname(from_page) or "."
    return Markup(posixpath.relpath(to_page, base))
