"""The pure half of the clone check: which repository a remote URL names."""

from __future__ import annotations

import pytest

from commit_digest.collect.git_identity import (
    Remote,
    display_url,
    named_remotes,
    repository_of_url,
    roots_key,
    same_repository,
)


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/vllm-project/vllm",
        "https://github.com/vllm-project/vllm.git",
        "https://github.com/vllm-project/vllm/",
        "https://github.com/vllm-project/vllm.git/",
        "http://github.com/vllm-project/vllm",
        "https://x-access-token:secret@github.com/vllm-project/vllm.git",
        "git@github.com:vllm-project/vllm.git",
        "git@github.com:vllm-project/vllm",
        "git@github.com:/vllm-project/vllm.git",
        "github.com:vllm-project/vllm.git",
        "ssh://git@github.com/vllm-project/vllm",
        "ssh://git@github.com:22/vllm-project/vllm.git",
        "git://github.com/vllm-project/vllm.git",
        "  https://github.com/vllm-project/vllm.git\n",
    ],
)
def test_the_usual_github_url_forms_name_owner_and_name(url: str) -> None:
    assert repository_of_url(url) == "vllm-project/vllm"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.example.com/vllm-project/vllm.git",
        "git@github.example.com:vllm-project/vllm.git",
        "ssh://git@ghe.corp.internal:2222/vllm-project/vllm",
    ],
)
def test_enterprise_hosts_are_read_like_github_com(url: str) -> None:
    assert repository_of_url(url) == "vllm-project/vllm"


def test_owner_and_name_keep_their_case_and_compare_without_it() -> None:
    found = repository_of_url("https://GitHub.com/VLLM-Project/VLLM.GIT")
    assert found == "VLLM-Project/VLLM"
    assert same_repository(found, "vllm-project/vllm")
    assert not same_repository(found, "vllm-project/vllm-fork")


@pytest.mark.parametrize(
    "url",
    [
        "/srv/clones/vllm",
        "/srv/clones/vllm.git",
        "../vllm",
        "./vllm",
        "vllm",
        "file:///srv/clones/vllm",
        "FILE:///srv/clones/vllm",
        "C:\\clones\\vllm",
        "C:/clones/vllm",
        "./odd:name",
        "https:///no-host",
        "https://[broken/vllm-project/vllm",
        "",
    ],
)
def test_a_path_on_disk_names_no_repository(url: str) -> None:
    assert repository_of_url(url) is None


def test_a_url_that_is_not_owner_and_name_is_kept_whole_so_it_never_matches() -> None:
    found = repository_of_url("https://gitlab.com/group/subgroup/vllm.git")
    assert found == "group/subgroup/vllm"
    assert not same_repository(found, "subgroup/vllm")


def test_origin_comes_first_and_local_remotes_are_left_out() -> None:
    remotes = [
        Remote("fork", "git@github.com:me/vllm.git"),
        Remote("disk", "/srv/clones/vllm"),
        Remote("origin", "https://github.com/vllm-project/vllm"),
    ]
    assert [(remote.name, found) for remote, found in named_remotes(remotes)] == [
        ("origin", "vllm-project/vllm"),
        ("fork", "me/vllm"),
    ]
    assert named_remotes([Remote("origin", "../elsewhere")]) == []


def test_credentials_never_reach_a_message() -> None:
    assert display_url("https://x-access-token:ghs_secret@github.com/a/b.git") == "https://github.com/a/b.git"
    assert display_url("https://ghp_secret@ghe.example.com:8443/a/b") == "https://ghe.example.com:8443/a/b"
    assert display_url("git@github.com:a/b.git") == "git@github.com:a/b.git"
    assert display_url("/srv/clones/b") == "/srv/clones/b"


def test_one_roots_record_per_repository_whatever_the_case() -> None:
    assert roots_key("VLLM-Project/vllm") == roots_key("vllm-project/VLLM") == "git-roots/vllm-project/vllm"
