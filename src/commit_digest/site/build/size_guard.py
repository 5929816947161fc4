"""The published site's size against its host's limit: how it is measured, when it warns, when a
build is refused, and the day the limit is reached at the archive's current rate.

The build (``commit_digest_mkdocs.build``) measures what it is about to publish and asks here
whether it may; everything here is plain functions of sizes, commit counts and an injected
"today", so the arithmetic is tested without a build and the build keeps only the wiring.

The size is the one GitHub Pages' artifact has: ``actions/upload-pages-artifact`` packs the
folder with ``tar --dereference --hard-dereference --exclude=.git --exclude=.github``, so a file
hard-linked at several paths (an incremental build links unchanged pages from the previous
site, and a page may share bytes with another) counts once per path, a symbolic link counts as
what it points to, and ``.git``/``.github`` not at all. That is larger than ``du`` says (which
counts a hard-linked file once) and what the host receives.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from commit_digest.errors import CommitDigestError
from commit_digest.site import paths

logger = logging.getLogger("mkdocs.plugins.commit_digest.size")

# A site past this share of its limit warns at every build, with the day it reaches the limit.
WARN_SHARE = 0.8
# The archive's current rate: its commits per day over these last weeks.
RATE_WEEKS = 8
# What upload-pages-artifact leaves out of the artifact, at any depth.
# What a published site leaves out: what the Pages artifact excludes, and the build's own state
# (scripts/published-copy.sh, scripts/deploy-rclone.sh).
NOT_PUBLISHED = frozenset({".git", ".github", paths.STATE_DIR})


class SiteTooLargeError(CommitDigestError):
    """The built site passes ``site_size_limit``: it is not published (the previous one stays)."""


def file_sizes(folder: Path) -> dict[str, int]:
    """Bytes of each file below ``folder``, by its path relative to it ("commits/abc/index.html"),
    as the Pages artifact stores them: each path of a hard-linked file, symbolic links followed.

    Asked at every build for the whole published site (tens of thousands of files): one scandir
    per folder and string paths, no Path made per file."""
    sizes: dict[str, int] = {}
    pending = [(os.fspath(folder), "")]
    seen: set[tuple[int, int]] = set()  # folders walked, by device and inode: a link loop ends
    while pending:
        directory, prefix = pending.pop()
        identity = os.stat(directory)  # noqa: PTH116 - string paths: no Path per folder
        if (identity.st_dev, identity.st_ino) in seen:
            continue
        seen.add((identity.st_dev, identity.st_ino))
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name in NOT_PUBLISHED:
                    continue
                try:
                    if entry.is_dir():  # follows a symbolic link, as tar --dereference does
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
                    else:
                        sizes[prefix + entry.name] = entry.stat().st_size
                except FileNotFoundError:  # a link to nothing, or a file removed meanwhile: no bytes
                    continue
    return sizes


def site_size(folder: Path) -> int:
    """The published size of the site in ``folder`` (0 when there is none)."""
    return sum(file_sizes(folder).values()) if folder.is_dir() else 0


def size_after_publication(
    published: Path, staging: Path, *, deleted_files: Iterable[str], deleted_folders: Iterable[str]
) -> int:
    """The size ``published`` will have once a publication in place moved ``staging``'s files
    over it and deleted ``deleted_files`` and the folders ``deleted_folders`` (paths below the
    site): measured before anything moves, so a site too large is never half published."""
    gone = set(deleted_files)
    below = tuple(folder.rstrip("/") + "/" for folder in deleted_folders)
    kept = {
        path: size for path, size in file_sizes(published).items() if path not in gone and not path.startswith(below)
    }
    return sum((kept | file_sizes(staging)).values())


def commits_per_day(commits_by_day: Mapping[date, int], *, today: date, weeks: int = RATE_WEEKS) -> float:
    """The archive's current rate: its commits on the ``weeks`` weeks of days up to ``today``, per day."""
    start = today - timedelta(weeks=weeks)
    return sum(count for day, count in commits_by_day.items() if start < day <= today) / (weeks * 7)


def limit_reached_on(
    size: int, limit: int, commits_by_day: Mapping[date, int], *, today: date, weeks: int = RATE_WEEKS
) -> date | None:
    """The day the site reaches ``limit`` if the archive goes on growing at its current rate and
    each new commit adds the site's bytes per commit so far; None when it does not grow (no
    commit in the last ``weeks`` weeks) or not before the calendar ends. The bytes per commit
    include the theme's and the hand-written pages' share, which do not grow: the date errs early."""
    if size >= limit:
        return today
    commits = sum(commits_by_day.values())
    rate = commits_per_day(commits_by_day, today=today, weeks=weeks)
    if commits == 0 or rate == 0 or size == 0:
        return None
    days = math.ceil((limit - size) / (size / commits * rate))
    return today + timedelta(days=days) if days <= (date.max - today).days else None


def readable_size(size: int) -> str:
    """Decimal units, three significant digits: "83.9 MB", "1 GB", "512 kB"."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 999.5:  # else three digits round to "1e+03"
            return f"{value:.3g} {unit}"
        value /= 1000
    return f"{value:.3g} TB"


@dataclass(frozen=True)
class SizeCheck:
    """A site's published size against its limit, and what the build says about it."""

    size: int
    limit: int

    @property
    def percent(self) -> int:
        """The share of the limit used, rounded down: a site just under its limit never reads 100%."""
        return self.size * 100 // self.limit

    @property
    def warns(self) -> bool:
        return self.size > self.limit * WARN_SHARE

    @property
    def too_large(self) -> bool:
        return self.size > self.limit

    def summary(self) -> str:
        return f"{readable_size(self.size)} ({self.percent}% of the {readable_size(self.limit)} limit)"

    def warning(self, commits_by_day: Mapping[date, int], *, today: date) -> str:
        """The warning past ``WARN_SHARE`` of the limit: the size, the limit and when it is reached."""
        reached = limit_reached_on(self.size, self.limit, commits_by_day, today=today)
        when = (
            f"reached around {reached.isoformat()} at the archive's rate of the last {RATE_WEEKS} weeks"
            if reached is not None
            else f"not reached at the archive's rate of the last {RATE_WEEKS} weeks (no commits)"
        )
        return (
            f"the site is {readable_size(self.size)}, {self.percent}% of its site_size_limit of "
            f"{readable_size(self.limit)}: {when}. {_REMEDIES}"
        )

    def refusal(self, published: Path) -> str:
        """Why a build is not published, and what to do."""
        return (
            f"the site is {readable_size(self.size)}, past its site_size_limit of {readable_size(self.limit)}: "
            f"it was not published and {published} is unchanged. {_REMEDIES}"
        )


_REMEDIES = (
    "Publish it where it fits (the rclone deploy, DEPLOY_TARGET=rclone, or a bigger host, then raise "
    "site_size_limit) or publish fewer languages."
)


def check_site_size(
    size: int, limit: int, commits_by_day: Callable[[], Mapping[date, int]], *, today: date, published: Path
) -> None:
    """Reports the size at every build, warns past ``WARN_SHARE`` of the limit (``commits_by_day``
    is asked only then) and raises ``SiteTooLargeError`` past the limit. The build calls it
    after MkDocs returned, so the warning does not fail a ``--strict`` build."""
    check = SizeCheck(size, limit)
    logger.info("commit-digest: site is %s", check.summary())
    if check.too_large:
        raise SiteTooLargeError(check.refusal(published))
    if check.warns:
        logger.warning("commit-digest: %s", check.warning(commits_by_day(), today=today))
