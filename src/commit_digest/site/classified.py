"""Each build's classifications of commits, kept beside its manifest for the next build.

Labelling a commit by the taxonomy's rules is the costliest per-commit step a build does before
it knows which pages changed; a build after one new day would redo it for the whole archive.
The classifications are kept per taxonomy (by its fingerprint) together with the build's shared
digest (code, configuration): either changing makes the next build classify everything again.
"""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

from pydantic import BaseModel, ValidationError

from commit_digest.site.incremental import MANIFEST_PATH
from commit_digest.taxonomy import Classification, Taxonomy

logger = logging.getLogger("mkdocs.plugins.commit_digest.classified")


class _Kept(BaseModel):
    shared: str
    classified: dict[str, Classification]


def _path(site_dir: Path, taxonomy: Taxonomy) -> Path:
    return site_dir / Path(MANIFEST_PATH).parent / f"classified-{taxonomy.fingerprint}.json.gz"


def recall_classified(site_dir: Path | None, taxonomies: list[Taxonomy], shared: str) -> int:
    """Gives each taxonomy what the build published at ``site_dir`` classified with the same
    rules and shared inputs; returns how many classifications were recalled."""
    if site_dir is None:
        return 0
    recalled = 0
    for taxonomy in taxonomies:
        path = _path(site_dir, taxonomy)
        if not path.is_file():
            continue
        try:
            kept = _Kept.model_validate_json(gzip.decompress(path.read_bytes()))
        except (OSError, EOFError, ValidationError) as error:
            logger.info("commit-digest: ignoring %s: %s", path, error)
            continue
        if kept.shared == shared:
            taxonomy.remember(kept.classified)
            recalled += len(kept.classified)
    return recalled


def keep_classified(site_dir: Path, taxonomies: list[Taxonomy], shared: str) -> None:
    """Writes each taxonomy's classifications of this build into the new site."""
    for taxonomy in taxonomies:
        path = _path(site_dir, taxonomy)
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = _Kept(shared=shared, classified=taxonomy.remembered()).model_dump_json().encode()
        path.write_bytes(gzip.compress(kept, compresslevel=1, mtime=0))
