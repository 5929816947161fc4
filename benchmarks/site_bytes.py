"""What a built site's bytes are made of, and how many commits fit before the host's limit.

GitHub Pages publishes a site of at most 1 GB; here 1 GB is 10**9 bytes (GitHub writes "GB"), and
every size in this module's lines is decimal (1 KB = 1,000 bytes, 1 MB = 10**6 bytes). A site's
bytes are what is published: the build's state folder (.commit-digest/) is not. For one
built site of N commits: files, HTML pages and bytes for the whole site and for each language (the
default language at the root, every other language in its own folder, ``en/``), those per commit,
the commit count at which they reach 1 GB if the bytes per commit stay as measured, and each
language's bytes by top-level folder (commits/, days/, search/, ...), so the next engineer sees
where the bytes go. Between two sizes, the bytes each further commit adds give a second projection
that leaves the fixed part (assets, the about page) out. Separate from benchmarks/scale.py, which
times builds: this only walks a finished site.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from commit_digest.site.paths import STATE_DIR

HOST_LIMIT = 10**9  # GitHub Pages: "Published GitHub Pages sites may be no larger than 1 GB"
TOP_FILES = "(top-level files)"  # index.html, 404.html, sitemap.xml, status.json of a language


@dataclass
class Tally:
    """Files, HTML pages and bytes of a part of the site."""

    files: int = 0
    html_pages: int = 0
    bytes: int = 0

    def add(self, path: Path, size: int) -> None:
        self.files += 1
        self.html_pages += path.suffix == ".html"
        self.bytes += size


@dataclass
class SiteBytes:
    commits: int
    whole: Tally = field(default_factory=Tally)
    languages: dict[str, Tally] = field(default_factory=dict)  # code -> its pages, default first
    folders: dict[str, dict[str, Tally]] = field(default_factory=dict)  # code -> top-level folder -> tally
    folder_of_language: dict[str, str] = field(default_factory=dict)  # code -> "/" or "en/"


def configured_languages(config: Path) -> tuple[str, ...]:
    """The languages the commit-digest plugin of ``config`` (an mkdocs.yml) builds, default first:
    its ``languages: [zh, en]``, else its ``language: zh``."""
    plugin = config.read_text(encoding="utf-8").split("- commit-digest:", 1)[-1]
    several = re.search(r"(?m)^\s+languages:\s*\[([^\]]*)\]", plugin)
    if several:
        return tuple(code.strip() for code in several.group(1).split(",") if code.strip())
    one = re.search(r"(?m)^\s+language:\s*(\w+)", plugin)
    return (one.group(1),) if one else ("zh",)


def measure_site(site: Path, languages: Sequence[str], commits: int) -> SiteBytes:
    """Walks ``site``: ``languages[0]`` is published at its root, every other code under ``code/``."""
    result = SiteBytes(commits)
    others = set(languages[1:])
    for code in languages:
        result.languages[code] = Tally()
        result.folders[code] = {}
        result.folder_of_language[code] = "/" if code == languages[0] else f"{code}/"
    for path in sorted(site.rglob("*")):
        if not path.is_file():
            continue
        size = path.stat().st_size
        parts = path.relative_to(site).parts
        if STATE_DIR in parts:
            continue  # the build's state: kept for the next build, never published
        code = parts[0] if len(parts) > 1 and parts[0] in others else languages[0]
        inside = parts[1:] if code != languages[0] else parts
        folder = f"{inside[0]}/" if len(inside) > 1 else TOP_FILES
        result.whole.add(path, size)
        result.languages[code].add(path, size)
        result.folders[code].setdefault(folder, Tally()).add(path, size)
    return result


def commits_at_limit(tally: Tally, commits: int) -> int:
    """The commit count at which ``tally`` reaches HOST_LIMIT, its bytes per commit unchanged."""
    return HOST_LIMIT * commits // tally.bytes if tally.bytes else 0


def megabytes(size: float) -> str:
    return f"{size / 10**6:.1f} MB"


def kilobytes(size: float) -> str:
    return f"{size / 10**3:.1f} KB"


def tally_line(name: str, tally: Tally, commits: int) -> str:
    return (
        f"{name:<24}{megabytes(tally.bytes):>12}{tally.files:>9,}{tally.html_pages:>9,}"
        f"{kilobytes(tally.bytes / commits):>12}{tally.files / commits:>14.2f}{commits_at_limit(tally, commits):>17,}"
    )


def report_site(sizes: SiteBytes) -> list[str]:
    """The lines of one size's figures: per language and whole, then each language's folders."""
    n = sizes.commits
    columns = f"{'bytes':>12}{'files':>9}{'html':>9}{'per commit':>12}{'files/commit':>14}{'commits at 1 GB':>17}"
    lines = [f"{'site bytes':<24}{columns}"]
    for code, tally in sizes.languages.items():
        lines.append(tally_line(f"  {code} ({sizes.folder_of_language[code]})", tally, n))
    lines.append(tally_line("  whole site", sizes.whole, n))
    lines.append(
        "  (1 GB = 10**9 bytes, GitHub Pages' limit; KB and MB decimal; 'commits at 1 GB' keeps these bytes per commit)"
    )
    for code, folders in sizes.folders.items():
        total = sizes.languages[code].bytes or 1
        heading = f"bytes by folder, {code} ({sizes.folder_of_language[code]})"
        lines.append(f"{heading:<34}{'share':>9}{'files':>9}{'per commit':>12}")
        for folder, tally in sorted(folders.items(), key=lambda item: -item[1].bytes):
            lines.append(
                f"  {folder:<20}{megabytes(tally.bytes):>12}{tally.bytes / total:>9.1%}{tally.files:>9,}"
                f"{kilobytes(tally.bytes / n):>12}"
            )
    return lines


def report_marginal(measured: Sequence[SiteBytes]) -> list[str]:
    """Between each two sizes: the bytes every further commit adds, and the commit count at which
    the site reaches 1 GB at that rate (the fixed part, assets and the like, counted once)."""
    lines = []
    for smaller, larger in itertools.pairwise(sorted(measured, key=lambda sizes: sizes.commits)):
        added = larger.commits - smaller.commits
        if added <= 0:
            continue
        lines.append(f"\n== site bytes growth, {smaller.commits} -> {larger.commits} commits ==")
        pairs = [(code, smaller.languages.get(code), tally) for code, tally in larger.languages.items()]
        for name, low, high in [*pairs, ("whole site", smaller.whole, larger.whole)]:
            if low is None:
                continue
            per_commit = (high.bytes - low.bytes) / added
            at_limit = larger.commits + (HOST_LIMIT - high.bytes) / per_commit if per_commit > 0 else 0
            lines.append(
                f"{name:<24}{kilobytes(per_commit):>12} per further commit;"
                f" 1 GB (10**9 bytes) at {at_limit:,.0f} commits at that rate"
            )
    return lines
