"""`restore`: rebuild the store from its durable form (after a damaged or lost cache/).

The durable form holds every record, analyses included, so this sends no request and
pays for nothing; records already in the store keep the better of the two analyses.
"""

from __future__ import annotations

import argparse
from typing import Any

from commit_digest.commands.common import add_common_options, add_durable_dir_option, open_store, settings_from_args
from commit_digest.errors import InputError
from commit_digest.settings import DigestSettings
from commit_digest.store.durable import restore_durable
from commit_digest.store.durable_files import MANIFEST, check_folder, data_files
from commit_digest.store.durable_kinds import KINDS, RECORDS, RELEASES
from commit_digest.store.durable_results import RestoreResult


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="rebuild the store from the durable form (data/), with no LLM calls",
        description=f"Merges the {_listing([kind.label for kind in KINDS])} of the durable JSON Lines form into "
        "the store: the way back from a damaged or lost store. Nothing is fetched or analysed.",
    )
    add_common_options(parser)
    add_durable_dir_option(parser)
    parser.add_argument(
        "--partial",
        action="store_true",
        help="restore the files that match the manifest and the valid lines of a damaged one, and name what "
        "was left out (exit 1); without it a missing or damaged file restores nothing (exit 2)",
    )
    parser.set_defaults(handler=run_restore)


def run_restore(args: argparse.Namespace) -> int:
    durable_dir = args.durable_dir.resolve()
    check_folder(durable_dir)
    if not (durable_dir / MANIFEST).is_file() and not (durable_dir.is_dir() and data_files(durable_dir)):
        raise InputError(
            f"no durable form at {durable_dir} (it has no {MANIFEST}); check out the data branch there first: "
            "bash scripts/data-branch.sh checkout data"
        )
    settings = settings_from_args(args)
    with open_store(settings) as store:
        result = restore_durable(store, durable_dir, release_tags=release_patterns(settings), partial=args.partial)
        total = len(store)
    if result.skipped:
        print(f"the store at {settings.cache_dir} already holds {durable_dir} ({RECORDS.counted(total)})")
    else:
        print(
            f"restored {_restored(result)} from {durable_dir} into {settings.cache_dir}: "
            f"{result.changed} new or better; the store holds {total}"
        )
    if result.releases_skipped:
        skipped = RELEASES.counted(result.releases_skipped)
        print(f"skipped {skipped} whose tags are not release tags (release_tags)")
    if result.left_out:
        print(f"left out (not restored): {'; '.join(result.left_out)}")
        return 1
    return 0


def _restored(result: RestoreResult) -> str:
    """Each kind the durable form held, counted: "20 records, 3 week narratives (3 new or newer) and ..."."""
    parts = [RECORDS.counted(result.records)] + [
        f"{kind.counted(restored.read)} ({restored.merged} new or newer)"
        for kind in KINDS
        if kind is not RECORDS and (restored := result.kind(kind.name)).read
    ]
    return _listing(parts)


def _listing(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def release_patterns(settings: DigestSettings) -> dict[str, str]:
    """Each repository's ``release_tags``: what a restore lets in, as a fetch does."""
    return {item.name: item.release_tags for item in settings.repositories}
