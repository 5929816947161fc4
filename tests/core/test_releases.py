"""The pure release rules (order, first release, what an update must place) and the store's releases."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from commit_digest.meaning.releases import (
    BranchPoint,
    Release,
    apply_placement,
    contained_by_branch_point,
    first_release_by_order,
    first_release_of,
    is_release_tag,
    is_tag_name,
    plan_placement,
    version_key,
)
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from tests.factories import make_release
from tests.factories import numbered_sha as sha

REPOSITORY = "vllm-project/vllm"
START = datetime(2026, 1, 1, tzinfo=UTC)


def release(tag: str, days: float, *commits: int, repository: str = REPOSITORY) -> Release:
    tagged_at = START + timedelta(days=days)
    return make_release(tag, tagged_at, *commits, tagged=1000 + int(days * 10), repository=repository)


def test_versions_sort_as_releases_do() -> None:
    tags = ["v0.10.0", "v0.9.2", "v0.10.0rc1", "v0.10.0.post1", "v0.10.0rc2", "v0.10.0.dev3", "nightly", "1.0"]
    assert sorted(tags, key=version_key) == [
        "nightly",
        "v0.9.2",
        "v0.10.0.dev3",
        "v0.10.0rc1",
        "v0.10.0rc2",
        "v0.10.0",
        "v0.10.0.post1",
        "1.0",
    ]


def test_first_release_of_maps_each_commit_to_the_earliest_release_listing_it() -> None:
    late = release("v0.2.0", 5, 3, 4)
    early = release("v0.1.0", 1, 1, 2, 3)  # a store restored beside a newer one may list 3 twice
    other = release("v0.1.0", 2, 3, repository="acme/widgets")
    found = first_release_of([late, other, early])
    assert found[(REPOSITORY, sha(3))] is early
    assert found[(REPOSITORY, sha(4))] is late
    assert found[("acme/widgets", sha(3))] is other
    assert (REPOSITORY, sha(9)) not in found


def test_a_tie_in_time_is_broken_by_version() -> None:
    final, candidate = release("v0.3.0", 3, 5), release("v0.3.0rc1", 3, 5)
    assert first_release_of([final, candidate])[(REPOSITORY, sha(5))] is candidate


def test_an_update_places_unreleased_commits_and_takes_back_what_a_new_earlier_tag_released() -> None:
    old = release("v0.1.0", 1, 1, 2)
    later = release("v0.3.0", 8, 3, 4, 5)
    candidate = release("v0.3.0rc1", 6)  # new: comes before v0.3.0
    stored = {sha(number): START + timedelta(days=number) for number in range(1, 8)}

    plan = plan_placement([old, later], [candidate], stored)

    assert [item.tag for item in plan.releases] == ["v0.1.0", "v0.3.0rc1", "v0.3.0"]
    assert set(plan.candidates) == {sha(number) for number in (3, 4, 5, 6, 7)}  # v0.1.0's stay put
    assert plan.reopened == {sha(3), sha(4), sha(5)}
    contained = {"v0.1.0": {sha(1), sha(2)}, "v0.3.0rc1": {sha(1), sha(2), sha(3), sha(4)}, "v0.3.0": set(stored)}
    first = first_release_by_order(plan.releases, contained, plan.candidates)
    placed = {item.tag: item.commits for item in apply_placement(plan, first)}
    assert placed == {
        "v0.1.0": (sha(1), sha(2)),
        "v0.3.0rc1": (sha(3), sha(4)),
        "v0.3.0": (sha(5), sha(6), sha(7)),
    }


def test_with_no_new_tag_only_commits_in_no_release_are_candidates() -> None:
    plan = plan_placement([release("v0.1.0", 1, 1)], [], {sha(1): START, sha(2): START})
    assert set(plan.candidates) == {sha(2)} and not plan.reopened


def test_the_branch_point_rule_is_exact_on_the_listed_page_and_by_date_beyond() -> None:
    point = BranchPoint(branch="main", sha=sha(3), committed_at=START + timedelta(days=3), later=(sha(9),))
    committed = {
        sha(1): START + timedelta(days=1),  # before the branch point: contained
        sha(3): START + timedelta(days=3),  # the branch point itself
        sha(9): START + timedelta(days=2),  # after it on the branch, dated before it: listed, so not contained
        sha(4): START + timedelta(days=4),  # after it
    }
    assert contained_by_branch_point(point, committed) == {sha(1), sha(3)}
    assert contained_by_branch_point(None, committed) == set()
    unrelated = BranchPoint(branch="main", sha=None, committed_at=None)
    assert contained_by_branch_point(unrelated, committed) == set()
    with pytest.raises(ValidationError, match="both a sha and a commit time"):
        BranchPoint(branch="main", sha=sha(3), committed_at=None)


def test_the_store_keeps_releases_in_order_and_counts_their_writes_in_its_revision(store: AnalysisStore) -> None:
    revision = store.revision()
    assert store.put_release(release("v0.2.0", 5, 3))
    assert store.put_release(release("v0.1.0", 1, 1))
    assert store.put_release(release("v9.0.0", 0, repository="acme/widgets"))
    assert store.revision() != revision
    assert [(item.repository, item.tag) for item in store.releases()] == [
        ("acme/widgets", "v9.0.0"),
        (REPOSITORY, "v0.1.0"),
        (REPOSITORY, "v0.2.0"),
    ]
    assert [item.tag for item in store.releases(REPOSITORY)] == ["v0.1.0", "v0.2.0"]

    unchanged = store.revision()
    assert not store.put_release(release("v0.1.0", 1, 1))  # the same release: nothing written
    assert not store.merge_release(release("v0.1.0", 1, 1, 2))  # a stored tag stays as stored
    assert store.revision() == unchanged
    assert store.release(REPOSITORY, "v0.1.0") == release("v0.1.0", 1, 1)

    assert store.delete_release(REPOSITORY, "v0.2.0") and not store.delete_release(REPOSITORY, "v0.2.0")
    assert store.revision() != unchanged
    assert len(store) == 0  # releases are not commit records


# Names git accepts as a tag and names it refuses, beside what a hostile durable form may hold.
TAG_NAMES = (
    "v1.0.0",
    "v1.0.0<b>",
    "v1.0.0-b-",
    'v1"x',
    "release/v1.0",
    "ünïcode",
    "@",
    "..",
    "v1..0",
    "/abs/path/x",
    "a/",
    "a//b",
    ".hidden",
    "a/.b",
    "v1.",
    "v1.lock",
    "a b",
    "a~1",
    "a^",
    "a:b",
    "a?",
    "a*",
    "a[1]",
    "a\\b",
    "a@{1}",
    "a\x7f",
    "a\tb",
    "",
)


def test_a_tag_name_is_one_git_would_make() -> None:
    for name in TAG_NAMES:
        made = subprocess.run(["git", "check-ref-format", f"refs/tags/{name}"], check=False).returncode == 0
        assert is_tag_name(name) == made, name


def test_a_release_tag_matches_the_pattern_and_is_a_tag_name() -> None:
    default = r"^v?\d+(\.\d+)+$"
    assert is_release_tag("v0.11.0", default) and is_release_tag("1.2", default)
    assert not is_release_tag("v0.11.0rc1", default) and not is_release_tag("nightly", default)
    assert is_release_tag("v1.0.0<b>", "^v1")
    # A pattern that takes every name still takes no name git could not have made.
    assert not any(is_release_tag(name, ".*") for name in ("..", "/abs/path/x", "a/../b", ""))


def test_a_restore_stores_only_release_tags(tmp_path: Path) -> None:
    with AnalysisStore(tmp_path / "old") as store:
        for tag in ("v0.1.0", "v0.2.0rc1", "..", "/abs/path/x", "v1/../../x"):
            store.put_release(release(tag, 1))
        store.put_release(release("v1.0.0", 2, repository="acme/widgets"))
        store.put_release(release("nightly", 3, repository="acme/widgets"))
        save_durable(store, tmp_path / "data")
    with AnalysisStore(tmp_path / "new") as store:
        # vLLM's own pattern takes its release candidates; acme/widgets, not named, has the default.
        result = restore_durable(store, tmp_path / "data", release_tags={REPOSITORY: r"^v\d"})
        kept = sorted(item.key for item in store.releases())
    assert kept == [("acme/widgets", "v1.0.0"), (REPOSITORY, "v0.1.0"), (REPOSITORY, "v0.2.0rc1")]
    assert (result.releases, result.releases_added, result.releases_skipped) == (3, 3, 4)
