"""Relations between the store's commits: reverts, fixes, follow-ups, mentions and series."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

import pytest

from commit_digest.meaning.pr_template import strip_template
from commit_digest.meaning.relations.relate import relate
from commit_digest.meaning.relations.relation import Relation, RelationKind
from commit_digest.meaning.relations.series import Series
from commit_digest.models import Commit, PullRequestInfo

VLLM = "vllm-project/vllm"
ASCEND = "vllm-project/vllm-ascend"
DAY = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
K = RelationKind


def sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def commit(
    seed: str,
    title: str,
    when: datetime = DAY,
    *,
    body: str = "",
    repository: str = VLLM,
    description: str | None = None,
) -> Commit:
    return Commit(
        repository=repository,
        sha=sha(seed),
        author_name="Dev",
        authored_at=when,
        committed_at=when,
        title=title,
        body=body,
        pull_request=None if description is None else PullRequestInfo(number=1, description=description),
    )


def key(item: Commit) -> tuple[str, str]:
    return (item.repository, item.sha)


def kinds(relations: tuple[Relation, ...]) -> list[tuple[RelationKind, tuple[str, str] | None]]:
    return [(relation.kind, relation.other) for relation in relations]


# --- reverts --------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [7, 12, 40])
def test_revert_by_body_sha_short_and_full(length: int) -> None:
    original = commit("a", "[Core] Speed up the scheduler (#100)")
    revert = commit(
        "b",
        "Revert the scheduler speed-up (#101)",
        DAY + timedelta(hours=1),
        body=f"It broke CI.\n\nThis reverts commit {original.sha[:length]}.\n",
    )
    relations = relate([original, revert])
    assert relations.of(key(revert)) == (Relation(K.REVERTS, key(original), (VLLM, 100), original.committed_at),)
    assert relations.of(key(original)) == (Relation(K.REVERTED_BY, key(revert), (VLLM, 101), revert.committed_at),)
    assert relations.reverted(key(original))
    assert not relations.reverted(key(revert))


def test_revert_by_body_sha_prefers_own_repository_then_any_and_refuses_ambiguous_prefix() -> None:
    target = commit("cross", "[Kernel] Add op (#5)", repository=ASCEND)
    revert = commit("r", "Revert op", DAY + timedelta(hours=1), body=f"This reverts commit {target.sha[:9]}.")
    assert kinds(relate([target, revert]).of(key(revert))) == [(K.REVERTS, key(target))]

    # Two stored shas sharing a 7-character prefix: the prefix names neither.
    first = Commit.model_validate({**commit("x", "One").model_dump(), "sha": "abcdef1" + "0" * 33})
    second = Commit.model_validate({**commit("y", "Two").model_dump(), "sha": "abcdef1" + "1" * 33})
    ambiguous = commit("z", "Undo", DAY + timedelta(hours=1), body="This reverts commit abcdef1.")
    relations = relate([first, second, ambiguous])
    assert relations.of(key(ambiguous)) == ()
    assert not relations.reverted(key(first))
    assert not relations.reverted(key(second))
    # The full sha does resolve.
    exact = commit("w", "Undo", DAY + timedelta(hours=1), body=f"This reverts commit {second.sha}.")
    assert kinds(relate([first, second, exact]).of(key(exact))) == [(K.REVERTS, key(second))]


def test_revert_by_title_only_picks_the_newest_earlier_commit_of_that_title() -> None:
    older = commit("old", "[CI] Pin torch", DAY - timedelta(days=30))
    newer = commit("new", "[CI] Pin torch", DAY)
    later = commit("later", "[CI] Pin torch", DAY + timedelta(days=2))  # landed after the revert
    revert = commit("rev", 'Revert "[CI] Pin torch"', DAY + timedelta(days=1))
    relations = relate([older, newer, later, revert])
    assert kinds(relations.of(key(revert))) == [(K.REVERTS, key(newer))]
    assert relations.reverted(key(newer))
    assert not relations.reverted(key(older))
    assert not relations.reverted(key(later))


def test_revert_by_title_pr_number_when_the_title_changed_since() -> None:
    original = commit("a", "[Model] Support Foo v2 (renamed later) (#321)")
    revert = commit("b", 'Revert "[Model] Support Foo (#321)" (#400)', DAY + timedelta(hours=3))
    relations = relate([original, revert])
    assert kinds(relations.of(key(revert))) == [(K.REVERTS, key(original))]
    assert relations.reverted(key(original))
    # The quoted title's "(#321)" is the reverted commit, not a mention of it.
    assert [relation.kind for relation in relations.of(key(original))] == [K.REVERTED_BY]


def test_revert_of_an_unstored_commit_keeps_its_pull_request_as_reference() -> None:
    revert = commit("b", 'Revert "[Model] Support Foo (#321)" (#400)')
    assert relate([revert]).of(key(revert)) == (Relation(K.REVERTS, None, (VLLM, 321)),)


def test_github_revert_pull_request_body() -> None:
    original = commit("a", "[Misc] A title GitHub later cut (#77)")
    revert = commit(
        "b", 'Revert "[Misc] A title GitHub la…" (#78)', DAY + timedelta(hours=1), body=f"Reverts {VLLM}#77"
    )
    assert kinds(relate([original, revert]).of(key(revert))) == [(K.REVERTS, key(original))]


def test_revert_of_a_revert_restores_the_original_and_the_chain_tells() -> None:
    original = commit("a", "[Feature] Add X (#10)", DAY)
    revert = commit("b", 'Revert "[Feature] Add X (#10)" (#11)', DAY + timedelta(days=1))
    restore = commit("c", 'Revert "Revert "[Feature] Add X (#10)" (#11)" (#12)', DAY + timedelta(days=3))
    relations = relate([restore, revert, original])
    assert kinds(relations.of(key(restore))) == [(K.REVERTS, key(revert))]
    assert kinds(relations.of(key(revert))) == [(K.REVERTS, key(original)), (K.REVERTED_BY, key(restore))]
    assert not relations.reverted(key(original))
    assert relations.reverted(key(revert))
    chain = relations.revert_chain(key(original))
    assert [(link.other, link.at) for link in chain] == [
        (key(revert), revert.committed_at),
        (key(restore), restore.committed_at),
    ]
    # Reverted once more: the revert stands again.
    again = commit("d", 'Revert "Revert "Revert "[Feature] Add X (#10)" (#11)" (#12)" (#13)', DAY + timedelta(days=5))
    relations = relate([original, revert, restore, again])
    assert relations.reverted(key(restore))
    assert not relations.reverted(key(revert))
    assert relations.reverted(key(original))
    assert len(relations.revert_chain(key(original))) == 3


def test_reverts_across_days_and_repositories_of_the_store() -> None:
    original = commit("a", "[Platform] Register the NPU (#900)", DAY, repository=ASCEND)
    unrelated = commit("u", "[Platform] Register the NPU (#900)", DAY, repository=VLLM)
    revert = commit(
        "b",
        'Revert "[Platform] Register the NPU (#900)" (#950)',
        DAY + timedelta(days=40),
        repository=ASCEND,
    )
    relations = relate([original, unrelated, revert])
    assert relations.of(key(revert)) == (Relation(K.REVERTS, key(original), (ASCEND, 900), original.committed_at),)
    assert relations.of(key(original)) == (Relation(K.REVERTED_BY, key(revert), (ASCEND, 950), revert.committed_at),)
    assert not relations.reverted(key(unrelated))


def test_a_body_sha_naming_the_revert_itself_is_no_relation() -> None:
    selfish = commit("s", "Odd", body=f"This reverts commit {sha('s')}.")
    relations = relate([selfish])
    assert relations.of(key(selfish)) == ()
    assert not relations.reverted(key(selfish))


# --- fixes, follow-ups, mentions ----------------------------------------------------------


def test_fixes_resolves_to_a_stored_pull_request_both_ways_and_an_issue_stays_a_reference() -> None:
    broken = commit("a", "[Core] Refactor the engine (#500)", DAY)
    fix = commit(
        "b",
        "[Bugfix] Repair the engine (#520)",
        DAY + timedelta(days=2),
        body="## Purpose\n\nFixes #500\nCloses #4242\n",
    )
    relations = relate([broken, fix])
    assert relations.of(key(fix)) == (
        Relation(K.FIXES, key(broken), (VLLM, 500), broken.committed_at),
        Relation(K.FIXES, None, (VLLM, 4242)),
    )
    assert relations.of(key(fix))[1].url == f"https://github.com/{VLLM}/issues/4242"
    assert relations.of(key(broken)) == (Relation(K.FIXED_BY, key(fix), (VLLM, 520), fix.committed_at),)
    assert not relations.reverted(key(broken))


@pytest.mark.parametrize(
    "text",
    [
        "fixes #500",
        "FIXED #500",
        "Resolves: #500",
        "closes vllm-project/vllm#500",
        "Fix https://github.com/vllm-project/vllm/issues/500",
        "resolved https://github.com/vllm-project/vllm/pull/500/files",
        "Fixes [#500](https://github.com/vllm-project/vllm/pull/500)",
        "Fixes #7, #500 and #8",
    ],
)
def test_fix_forms(text: str) -> None:
    broken = commit("a", "[Core] Refactor (#500)")
    fix = commit("b", "[Bugfix] Repair (#520)", DAY + timedelta(hours=1), body=text)
    fixes = [relation for relation in relate([broken, fix]).of(key(fix)) if relation.other is not None]
    assert kinds(tuple(fixes)) == [(K.FIXES, key(broken))]


def test_owner_repo_reference_resolves_in_another_repository_of_the_store() -> None:
    upstream = commit("up", "[Kernel] New attention API (#700)", DAY, repository=VLLM)
    same_number = commit("asc", "[Misc] Something else (#700)", DAY, repository=ASCEND)
    plugin = commit(
        "plug",
        "[Bugfix] Adapt to the new attention API (#710)",
        DAY + timedelta(days=1),
        repository=ASCEND,
        body="Fixes Vllm-Project/vllm#700 for the NPU.",
    )
    relations = relate([upstream, same_number, plugin])
    assert kinds(relations.of(key(plugin))) == [(K.FIXES, key(upstream))]
    assert kinds(relations.of(key(upstream))) == [(K.FIXED_BY, key(plugin))]
    assert relations.of(key(same_number)) == ()


def test_reference_to_an_unknown_repository_stays_as_written() -> None:
    fix = commit("b", "[Bugfix] Pin the kernel (#5)", body="Fixes pytorch/pytorch#12345")
    assert relate([fix]).of(key(fix)) == (Relation(K.FIXES, None, ("pytorch/pytorch", 12345)),)


@pytest.mark.parametrize(
    "text",
    [
        "This is a follow-up to #600.",
        "followup of #600",
        "Follow up for #600",
        "Follow-up: #600",
        "follow-up PR of https://github.com/vllm-project/vllm/pull/600",
    ],
)
def test_follow_up_both_ways(text: str) -> None:
    first = commit("a", "[Perf] Faster sampler (#600)", DAY)
    second = commit("b", "[Perf] Faster sampler, part two (#650)", DAY + timedelta(days=4), body=text)
    relations = relate([first, second])
    assert relations.of(key(second)) == (Relation(K.FOLLOWS_UP, key(first), (VLLM, 600), first.committed_at),)
    assert relations.of(key(first)) == (Relation(K.FOLLOWED_UP_BY, key(second), (VLLM, 650), second.committed_at),)


def test_a_title_naming_an_earlier_pull_request_mentions_it() -> None:
    earlier = commit("a", "[Core] Change the block manager (#123)", DAY - timedelta(days=3))
    fix = commit("b", "[Bugfix] Fix regression from #123 (#456)", DAY)
    relations = relate([earlier, fix])
    assert kinds(relations.of(key(fix))) == [(K.MENTIONS, key(earlier))]
    assert kinds(relations.of(key(earlier))) == [(K.MENTIONED_BY, key(fix))]
    # A "#N" in a body alone is no mention: bodies are full of them.
    other = commit("c", "[Misc] Tidy (#457)", DAY, body="See #123 for the background.")
    assert relate([earlier, other]).of(key(other)) == ()


def test_a_reference_both_fixed_and_mentioned_is_fixes_only() -> None:
    earlier = commit("a", "[Core] Change (#123)", DAY - timedelta(days=3))
    fix = commit("b", "[Bugfix] Repair #123 (#456)", DAY, body="Fixes #123\nfollow-up to #123")
    relations = relate([earlier, fix])
    assert kinds(relations.of(key(fix))) == [(K.FIXES, key(earlier))]
    assert kinds(relations.of(key(earlier))) == [(K.FIXED_BY, key(fix))]


def test_title_fix_and_pull_request_description_are_read() -> None:
    earlier = commit("a", "[Core] Change (#123)", DAY - timedelta(days=3))
    titled = commit("b", "[Bugfix] Fix #123 (#456)", DAY)
    described = commit("c", "[Bugfix] Another (#457)", DAY + timedelta(hours=1), description="Fixes #123")
    relations = relate([earlier, titled, described])
    assert kinds(relations.of(key(titled))) == [(K.FIXES, key(earlier))]
    assert kinds(relations.of(key(described))) == [(K.FIXES, key(earlier))]
    assert kinds(relations.of(key(earlier))) == [(K.FIXED_BY, key(titled)), (K.FIXED_BY, key(described))]


VLLM_TEMPLATE = """\
<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

{purpose}

FIX #xxxx (*link existing issues this PR will resolve*)

## Test Plan

<!-- e.g. Fixes #1234 when the PR closes issue 1234 -->

<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR, such as "Fix some issue (link existing issues this PR will resolve)".
- [ ] Fixes #9999 in the checklist is template text.
</details>
"""


def test_template_junk_is_no_reference() -> None:
    earlier = commit("a", "[Core] Change (#1234)", DAY - timedelta(days=3))
    stored = commit("n", "[Core] Other (#9999)", DAY - timedelta(days=3))
    templated = commit("b", "[Bugfix] Repair (#456)", DAY, body=VLLM_TEMPLATE.format(purpose="Make it work."))
    relations = relate([earlier, stored, templated])
    assert relations.of(key(templated)) == ()
    assert relations.of(key(earlier)) == ()
    # What the author wrote in the template is read.
    written = commit("c", "[Bugfix] Repair (#457)", DAY, body=VLLM_TEMPLATE.format(purpose="Fixes #1234"))
    assert kinds(relate([earlier, stored, written]).of(key(written))) == [(K.FIXES, key(earlier))]


def test_no_self_links_and_no_false_references() -> None:
    own = commit(
        "a",
        "[Bugfix] Fix #456 and its follow-up (#456)",
        DAY,
        body=(
            "Fixes #456\nfollow-up to https://github.com/vllm-project/vllm/pull/456\n"
            "Colours &#35; and &#123; and issue#12 and a/b/c#4 and path/to/file.py#L10"
        ),
    )
    assert relate([own]).of(key(own)) == ()


# --- order, dedup, hostile text -------------------------------------------------------------


def test_relations_are_ordered_by_kind_then_date() -> None:
    target = commit("t", "[Core] Base (#10)", DAY)
    late_fix = commit("f2", "[Bugfix] Late (#30)", DAY + timedelta(days=9), body="Fixes #10")
    early_fix = commit("f1", "[Bugfix] Early (#20)", DAY + timedelta(days=1), body="Fixes #10")
    mention = commit("m", "[Doc] About #10 (#25)", DAY + timedelta(days=2))
    follow = commit("u", "[Perf] More (#26)", DAY + timedelta(days=3), body="follow-up to #10")
    revert = commit("r", 'Revert "[Core] Base (#10)" (#40)', DAY + timedelta(days=10))
    relations = relate([late_fix, mention, revert, follow, target, early_fix])
    assert kinds(relations.of(key(target))) == [
        (K.REVERTED_BY, key(revert)),
        (K.FIXED_BY, key(early_fix)),
        (K.FIXED_BY, key(late_fix)),
        (K.FOLLOWED_UP_BY, key(follow)),
        (K.MENTIONED_BY, key(mention)),
    ]


def test_hostile_titles_pass_through_unharmed() -> None:
    title = "<script>alert('x')</script> \"quoted\" & [1/2] (#77)"
    hostile = commit("h", title, DAY)
    second = commit("h2", "<script>alert('x')</script> \"quoted\" & [2/2] (#78)", DAY + timedelta(hours=1))
    revert = commit("r", f'Revert "{title}" (#79)', DAY + timedelta(hours=2))
    relations = relate([hostile, second, revert])
    assert kinds(relations.of(key(revert))) == [(K.REVERTS, key(hostile))]
    (series,) = relations.series
    assert series.name == "<script>alert('x')</script> \"quoted\" &"
    assert re.fullmatch(r"[a-z0-9-]+", series.slug)


# --- series -------------------------------------------------------------------------------


def test_series_of_three_on_different_days_in_order() -> None:
    parts = [
        commit(f"p{part}", f"[Kernel] Fused MoE rework [{part}/3] (#{800 + part})", DAY + timedelta(days=days))
        for part, days in ((2, 1), (3, 5), (1, 0))
    ]
    relations = relate(parts)
    (series,) = relations.series
    assert series.parts == tuple((part, key(parts[index])) for part, index in ((1, 2), (2, 0), (3, 1)))
    assert (series.total, series.landed, series.missing, series.numbered) == (3, 3, (), True)
    assert series.repository == VLLM
    assert series.name == "[Kernel] Fused MoE rework"
    assert all(relations.series_of(key(part)) is series for part in parts)


def test_series_with_a_missing_part() -> None:
    first = commit("a", "[1/3] Refactor the scheduler (#1)", DAY)
    third = commit("c", "[3/3] Refactor the scheduler (#3)", DAY + timedelta(days=2))
    (series,) = relate([third, first]).series
    assert (series.landed, series.total, series.missing) == (2, 3, (2,))
    assert [part for part, _ in series.parts] == [1, 3]


def test_series_without_a_total() -> None:
    one = commit("a", "[Part 1] Move the tokenizer (#1)", DAY)
    two = commit("b", "[Part 2] Move the tokenizer (#2)", DAY + timedelta(days=1))
    (series,) = relate([one, two]).series
    assert (series.total, series.landed, series.missing, series.numbered) == (None, 2, (), False)
    # One "[Part 1]" alone is no series yet.
    assert relate([one]).series == ()
    assert relate([one]).series_of(key(one)) is None


def test_a_lone_part_with_a_known_total_is_a_series() -> None:
    lone = commit("a", "[1/3] Split the model runner (#1)", DAY)
    relations = relate([lone])
    series = relations.series_of(key(lone))
    assert isinstance(series, Series)
    assert (series.landed, series.total, series.missing) == (1, 3, (2, 3))


def test_series_are_per_repository_and_newest_first_and_reverts_are_no_parts() -> None:
    vllm_parts = [commit(f"v{n}", f"[{n}/2] Common name (#{n})", DAY + timedelta(days=n)) for n in (1, 2)]
    ascend_parts = [
        commit(f"a{n}", f"[{n}/2] Common name (#{n})", DAY + timedelta(days=10 + n), repository=ASCEND) for n in (1, 2)
    ]
    revert = commit("r", 'Revert "[2/2] Common name (#2)" (#3)', DAY + timedelta(days=3))
    relations = relate([*vllm_parts, *ascend_parts, revert])
    assert [series.repository for series in relations.series] == [ASCEND, VLLM]
    assert relations.series_of(key(revert)) is None
    assert relations.reverted(key(vllm_parts[1]))


def test_slugs_are_unique_url_safe_and_stable() -> None:
    commits = [
        commit("a1", "[1/2] Add the kernel (#1)", DAY),
        commit("a2", "[2/2] Add the kernel (#2)", DAY),
        # "vllm" + "ascend add the kernel" and "vllm-ascend" + "add the kernel" read alike.
        commit("b1", "[1/2] Ascend add the kernel (#3)", DAY),
        commit("b2", "[2/2] Ascend add the kernel (#4)", DAY),
        commit("c1", "[1/2] Add the kernel (#1)", DAY, repository=ASCEND),
        commit("d1", "[1/2] 支持 NPU 图模式 (#5)", DAY, repository=ASCEND),
        commit("e1", "[1/3] Café crème support (#6)", DAY),
        commit("f1", "[1/2] " + "very long title " * 10 + "(#7)", DAY),
    ]
    first = {series.key: series.slug for series in relate(commits).series}
    again = {series.key: series.slug for series in relate(reversed(commits)).series}
    assert first == again
    slugs = [series.slug for series in relate(commits).series]
    assert len(slugs) == len(set(slugs)) == 6
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug) and len(slug) <= 60 for slug in slugs)
    by_repository = {(series.repository, series.key): series.slug for series in relate(commits).series}
    assert by_repository[(VLLM, "add the kernel")] == "vllm-add-the-kernel"
    assert by_repository[(VLLM, "ascend add the kernel")] != by_repository[(ASCEND, "add the kernel")]
    assert by_repository[(VLLM, "ascend add the kernel")].startswith("vllm-ascend-add-the-kernel-")
    assert by_repository[(ASCEND, "支持 npu 图模式")].startswith("vllm-ascend-npu-")
    assert by_repository[(VLLM, "café crème support")].startswith("vllm-cafe-creme-support-")


# --- scale --------------------------------------------------------------------------------


def test_a_store_of_fifteen_thousand_commits_relates() -> None:
    filler = ("The scheduler now batches prefill and decode. " * 60)[:2800]
    # Most bodies' templates hold no number; one in ten has one in its comments (which makes
    # relate strip the template, the costly path).
    plain = VLLM_TEMPLATE.replace("Fixes #1234 when", "Fixes when").replace("Fixes #9999 in", "Fixes in")
    commits = []
    for number in range(15_000):
        body = (VLLM_TEMPLATE if number % 10 == 0 else plain).format(purpose=filler)
        if number % 50 == 1:
            body += f"\nFixes #{10_000 + number - 1}\n"
        title = f"[Misc] Change number {number} (#{10_000 + number})"
        if number % 100 == 2:
            title = f'Revert "[Misc] Change number {number - 2} (#{10_000 + number - 2})" (#{10_000 + number})'
        if number % 300 == 3:
            title = f"[{number % 3 + 1}/3] Series {number // 3} (#{10_000 + number})"
        commits.append(
            Commit(
                repository=VLLM,
                sha=f"{number:040x}",
                author_name="Dev",
                authored_at=DAY + timedelta(minutes=number),
                committed_at=DAY + timedelta(minutes=number),
                title=title,
                body=body,
            )
        )
    relations = relate(commits)
    assert relations.reverted((VLLM, f"{0:040x}"))
    assert kinds(relations.of((VLLM, f"{1:040x}"))) == [(K.FIXES, (VLLM, f"{0:040x}"))]


# --- robustness -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fixes"),
    [
        ("<!-- Fixes #500 -->\nA change.", False),
        ("<!--\nFixes #500\n-->\nA change.", False),
        ("<details>\n<summary>More</summary>\nFixes #500\n</details>\n", False),
        ("- [x] Fixes #500", False),
        ("Signed-off-by: Fixes #500 <dev@example.com>", False),
        ("FIX #500 (*link existing issues this PR will resolve*)", True),
        ("## Fixes #500\n\nThe text under it.", True),
        ("```\nFixes #500\n```", True),
        ("<!-- markdownlint-disable -->\nFixes #500\n<details>\n- [ ] Fixes #7\n</details>", True),
        ("Fixes #500 <!-- the issue -->", True),
    ],
)
def test_references_are_read_as_the_template_stripped_text_says(body: str, fixes: bool) -> None:
    broken = commit("a", "[Core] Refactor (#500)")
    fix = commit("b", "[Bugfix] Repair (#520)", DAY + timedelta(hours=1), body=body)
    pre_stripped = commit("c", "[Bugfix] Repair (#521)", DAY + timedelta(hours=1), body=strip_template(body))
    relations = relate([broken, fix, pre_stripped])
    assert kinds(relations.of(key(fix))) == ([(K.FIXES, key(broken))] if fixes else [])
    assert kinds(relations.of(key(pre_stripped))) == kinds(relations.of(key(fix)))


def test_revert_cycles_and_long_chains_end() -> None:
    first = commit("a", "One")
    second = commit("b", "Two", body=f"This reverts commit {first.sha}.")
    first = first.model_copy(update={"body": f"This reverts commit {second.sha}."})
    relations = relate([first, second])
    # The chain stops where it comes back; whether either stands reverted in a cycle is not defined.
    assert relations.revert_chain(key(first)) == (Relation(K.REVERTED_BY, key(second), None, second.committed_at),)
    assert relations.revert_chain(key(second)) == (Relation(K.REVERTED_BY, key(first), None, first.committed_at),)

    chain = [commit("c0", "Base", DAY)]
    for number in range(1, 2000):
        chain.append(
            commit(
                f"c{number}",
                f"Undo {number}",
                DAY + timedelta(minutes=number),
                body=f"This reverts commit {chain[-1].sha}.",
            )
        )
    relations = relate(chain)
    assert not relations.reverted(key(chain[-1]))
    assert relations.reverted(key(chain[-2]))
    assert relations.reverted(key(chain[0]))  # 1999 reverts after it: an odd number
    assert len(relations.revert_chain(key(chain[0]))) == 1999


def test_the_same_commit_given_twice_relates_once() -> None:
    broken = commit("a", "[Core] Refactor (#500)")
    fix = commit("b", "[Bugfix] Repair (#520)", DAY + timedelta(hours=1), body="Fixes #500")
    relations = relate([broken, fix, fix, broken])
    assert kinds(relations.of(key(broken))) == [(K.FIXED_BY, key(fix))]


def test_a_revert_that_also_fixes_an_issue() -> None:
    original = commit("a", "[Core] Risky (#10)")
    revert = commit("b", 'Revert "[Core] Risky (#10)" (#11)', DAY + timedelta(hours=1), body="Fixes #9000\nReverts #10")
    assert relate([original, revert]).of(key(revert)) == (
        Relation(K.REVERTS, key(original), (VLLM, 10), original.committed_at),
        Relation(K.FIXES, None, (VLLM, 9000)),
    )
