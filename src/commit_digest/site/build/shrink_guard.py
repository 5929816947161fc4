"""A site is never replaced by a much smaller one by mistake: a build from a store that is not
there (a typo in ``--cache``, a lost cache, a path that is a file), or that holds far fewer
commits than the published site shows, is refused before anything is built, unless the caller
means it (``--allow-shrink``).

"Far fewer" is under half (``SHRINK_SHARE``): an archive never loses half its commits in a
night, while a store cut short (the Actions cache evicted and only the last days fetched again)
does. The published count is the one the published site's status shows (kept in its manifest).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from commit_digest.errors import CommitDigestError
from commit_digest.site.build.status import STATUS_FILE

SHRINK_SHARE = 0.5


class SiteShrinkError(CommitDigestError):
    """The store would publish far fewer commits than the published site shows: not built."""


def published_commits(site: Path, manifest_status: Mapping[str, object] | None) -> int:
    """The commits the published site shows: from its build manifest's status, else from its
    ``status.json``; 0 when there is no site or it says nothing of commits."""
    facts: object = manifest_status
    if not facts and (site / STATUS_FILE).is_file():
        try:
            facts = json.loads((site / STATUS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            facts = None
    count = facts.get("commits") if isinstance(facts, Mapping) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def check_store(store: Path, stored: int | None, published: int, site: Path, *, allow_shrink: bool) -> None:
    """Raises SiteShrinkError when the store (``stored`` commits; None when there is no store at
    ``store``) would replace a site of ``published`` commits with far fewer, unless ``allow_shrink``.
    A path that is not a folder is never a store: refused even with no site published yet."""
    if allow_shrink:
        return
    if store.exists() and not store.is_dir():
        raise SiteShrinkError(
            f"the store {store} is a file, not a store folder: not built, {site} is unchanged; "
            "check --cache (or cache_dir of mkdocs.yml)"
        )
    if stored is None:
        # A typo'd --cache or cache_dir: even a first build would publish a site of no commits.
        outcome = (
            f"nothing built, {site} is unchanged (it shows {_commits(published)})"
            if published
            else f"nothing built into {site}"
        )
        raise SiteShrinkError(
            f"the store {store} does not exist: {outcome}; check --cache (or cache_dir of mkdocs.yml, "
            "or restore the store), or pass --allow-shrink to publish a site without it"
        )
    if published == 0 or stored >= published * SHRINK_SHARE:
        return
    raise SiteShrinkError(
        f"the store {store} holds {_commits(stored)} and the published site {site} shows {_commits(published)}: "
        "not built, "
        f"{site} is unchanged; check --cache (or restore the store), or pass --allow-shrink to publish it anyway"
    )


def _commits(count: int) -> str:
    return f"{count} commit{'' if count == 1 else 's'}"
