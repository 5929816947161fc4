"""Release page paths: one page per tag, never a shared one, never outside ``releases/``."""

from __future__ import annotations

from commit_digest.site.paths import release_pages

REPOSITORY = "vllm-project/vllm"


def pages_of(*tags: str) -> dict[str, str]:
    found = release_pages([(REPOSITORY, tag) for tag in tags], several_repositories=False)
    return {tag: page for (_repository, tag), page in found.items()}


def test_a_safe_tag_is_its_own_page() -> None:
    assert pages_of("v0.11.0", "v0.11.0rc1", "1.2") == {
        "v0.11.0": "releases/v0.11.0.md",
        "v0.11.0rc1": "releases/v0.11.0rc1.md",
        "1.2": "releases/1.2.md",
    }


def test_tags_of_one_safe_form_get_pages_of_their_own() -> None:
    pages = pages_of("v1.0.0<b>", "v1.0.0-b-", "v1.0.0-b")
    assert pages["v1.0.0-b"] == "releases/v1.0.0-b.md"
    assert len(set(pages.values())) == 3
    assert pages["v1.0.0<b>"].startswith("releases/v1.0.0-b-") and pages["v1.0.0-b-"].startswith("releases/v1.0.0-b-")
    # A page is the tag's alone: it does not move when another tag comes.
    assert pages_of("v1.0.0<b>")["v1.0.0<b>"] == pages["v1.0.0<b>"]


def test_a_tag_named_as_another_tags_page_takes_it_and_the_other_moves() -> None:
    hashed = pages_of("v1.0.0<b>")["v1.0.0<b>"].removeprefix("releases/").removesuffix(".md")
    pages = pages_of("v1.0.0<b>", hashed)
    assert pages[hashed] == f"releases/{hashed}.md"
    assert pages["v1.0.0<b>"] != pages[hashed]


def test_tags_one_case_apart_get_two_folders_on_any_file_system() -> None:
    pages = pages_of("V1.0", "v1.0")
    assert len({page.lower() for page in pages.values()}) == 2


def test_no_tag_leaves_the_releases_folder_or_takes_its_index() -> None:
    tags = ("..", ".", "/abs/path/x", "a/../b", "index", "unreleased", "-", "\u202eevil", "../../etc")
    pages = pages_of(*tags)
    assert len(set(pages.values())) == len(tags)
    for page in pages.values():
        folder, name = page.split("/")
        assert folder == "releases" and name.endswith(".md"), page
        assert name not in ("index.md", "unreleased.md") and not name.startswith("."), page


def test_on_a_site_of_several_repositories_each_has_its_folder() -> None:
    pages = release_pages([(REPOSITORY, "v1.0"), ("acme/widgets", "v1.0")], several_repositories=True)
    assert pages == {
        (REPOSITORY, "v1.0"): f"releases/{REPOSITORY}/v1.0.md",
        ("acme/widgets", "v1.0"): "releases/acme/widgets/v1.0.md",
    }
