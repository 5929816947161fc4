"""Where each generated page lives (its Markdown source path) and relative links between them.

Links are built here from dates, hex shas and label ids only, never from untrusted text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import date

from markupsafe import Markup

from commit_digest.site.model.calendar import IsoWeek

# What a build keeps in its site for the next one (the manifest, the summaries): never a page.
STATE_DIR = ".commit-digest"
HOME = "index.md"
ARCHIVE_INDEX = "archive/index.md"
PLATFORMS_INDEX = "platforms/index.md"
SUBSYSTEMS_INDEX = "subsystems/index.md"
REPOSITORIES_INDEX = "repositories/index.md"
WEEKS_INDEX = "weeks/index.md"
SUBSCRIBE = "subscribe/index.md"
IMPACT_INDEX = "impact/index.md"
RELEASES_INDEX = "releases/index.md"
UNRELEASED = "releases/unreleased.md"
SERIES_INDEX = "series/index.md"
GENERATED_PREFIXES = (
    "days/",
    "commits/",
    "archive/",
    "platforms/",
    "subsystems/",
    "repositories/",
    "weeks/",
    "subscribe/",
    "impact/",
    "releases/",
    "series/",
)
# A tag or a series slug as a path segment: what git allows in a tag name beyond these becomes "-".
_UNSAFE_SEGMENT = re.compile(r"[^A-Za-z0-9._-]+")


def day_page(day: date) -> str:
    return f"days/{day.isoformat()}.md"


def week_page(week: IsoWeek) -> str:
    """A week's page (its id, 2026-W03, is digits and W only)."""
    return f"weeks/{week.id}.md"


def commit_page(sha: str, repository: str | None = None) -> str:
    """A commit's page; on a site of several repositories under its repository's owner/name,
    so two repositories' commits can never share a path (a fork shares its shas)."""
    return f"commits/{repository}/{sha[:12]}.md" if repository else f"commits/{sha[:12]}.md"


def impact_month_page(month: str) -> str:
    return f"impact/{month}.md"


def segment(text: str) -> str:
    """``text`` as one safe path segment (never empty, never "." or "..", never "index" or "unreleased")."""
    cleaned = _UNSAFE_SEGMENT.sub("-", text).strip("-.") or "-"
    return cleaned + "-" if cleaned in ("index", "unreleased") else cleaned


def release_pages(releases: Iterable[tuple[str, str]], several_repositories: bool) -> dict[tuple[str, str], str]:
    """Each release's page, by (repository, tag): ``releases/v0.11.0``; on a site of several
    repositories under the repository's owner/name (two repositories may both tag v1.0.0).

    A tag that is not a safe segment as it is (``v1.0.0<b>``) gets its safe form and a short hash
    of the tag (``v1.0.0-b-1f0c3a``), so two tags with one safe form (``v1.0.0-b-``) never share a
    page; decided for all of a site's releases at once, so that a hash prefix two tags share, or a
    tag named as another's page is, lengthens the hash rather than hiding a release.
    """
    pages: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    keys = sorted(set(releases))
    # Tags safe as they are first: their pages are their names. Pages are told apart as a
    # case-insensitive file system would (V1.0 and v1.0 are one folder there).
    for length in (0, 6, 12, 64):
        for repository, tag in keys:
            if (repository, tag) in pages or (length == 0 and segment(tag) != tag):
                continue
            name = tag if length == 0 else f"{segment(tag).rstrip('-')}-{_tag_hash(tag)[:length]}"
            page = f"releases/{repository}/{name}.md" if several_repositories else f"releases/{name}.md"
            if page.lower() not in taken or length == 64:
                taken.add(page.lower())
                pages[(repository, tag)] = page
    return pages


def _tag_hash(tag: str) -> str:
    return hashlib.sha256(tag.encode("utf-8")).hexdigest()


def series_page(slug: str) -> str:
    return f"series/{segment(slug)}.md"


def month_page(month: str) -> str:
    return f"archive/{month}.md"


def label_page(kind: str, label_id: str) -> str:
    """``kind`` is "platforms", "subsystems" or "repositories" (the id is then owner/name): the
    label's index (its months, the latest month)."""
    return f"{kind}/{label_id}/index.md"


def label_month_page(kind: str, label_id: str, month: str, part: int = 1) -> str:
    """One month of a label's commits; a month over the page size continues in parts 2, 3, ..."""
    return f"{kind}/{label_id}/{month}.md" if part == 1 else f"{kind}/{label_id}/{month}-{part}.md"


def url(src_uri: str, directory_urls: bool = True) -> str:
    """The URL MkDocs gives the page at ``src_uri`` ("" for the home page with directory URLs)."""
    stem = src_uri[: -len(".md")]
    if not directory_urls:
        return stem + ".html"
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def href(from_page: str, to_page: str, directory_urls: bool = True, *, file: bool = False) -> Markup:
    """The relative URL an HTML page at ``from_page`` links ``to_page`` with (source paths);
    with ``file``, ``to_page`` is a file served as it is (a feed: "feeds/all.xml")."""
    source, target = url(from_page, directory_urls), to_page if file else url(to_page, directory_urls)
    # Segments of the source's folder and of the target; posixpath.relpath would do the same
    # through abspath (a getcwd per link), which a build of tens of thousands of pages feels.
    base = source.split("/")[:-1]
    parts = target.split("/")
    common = 0
    while common < len(base) and common < len(parts) - 1 and base[common] == parts[common]:
        common += 1
    relative = "../" * (len(base) - common) + "/".join(parts[common:])
    return Markup(relative or "./")
