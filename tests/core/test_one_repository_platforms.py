"""``platforms:`` beside ``repository:``: a site of one hardware plugin's repository puts every
commit on its platform, as an item of ``repositories:`` does; both at once is one clear error,
wherever the options come from (the plugin block or the CLI's reading of it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from commit_digest.errors import InputError
from commit_digest.settings import load_settings, settings_from_mapping


def test_the_one_repository_carries_the_platforms() -> None:
    settings = settings_from_mapping({"repository": "vllm-project/vllm-ascend", "platforms": ["ascend"]}, where="x")
    [one] = settings.repositories
    assert one.name == "vllm-project/vllm-ascend" and one.platforms == ("ascend",)
    assert settings.for_repository("vllm-project/vllm-ascend").repositories[0].platforms == ("ascend",)


def test_without_platforms_the_repository_has_none() -> None:
    [one] = settings_from_mapping({}, where="x").repositories
    assert one.name == "vllm-project/vllm" and one.platforms == ()


def test_platforms_beside_repositories_is_one_clear_error() -> None:
    options = {"repositories": ["a/b", {"name": "a/c", "platforms": ["ascend"]}], "platforms": ["ascend"]}
    with pytest.raises(InputError) as raised:
        settings_from_mapping(options, where="mkdocs.yml: plugins.commit-digest")
    message = str(raised.value)
    assert message.count("\n") == 0 and "platforms goes with repository:, not repositories:" in message
    # An empty list says nothing: no error.
    assert settings_from_mapping({**options, "platforms": []}, where="x").repositories[1].platforms == ("ascend",)


def test_the_cli_reads_platforms_from_the_plugin_block(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: x\nplugins:\n  - commit-digest:\n      repository: vllm-project/vllm-ascend\n"
        "      platforms: [ascend]\n",
        encoding="utf-8",
    )
    assert load_settings(config).repositories[0].platforms == ("ascend",)
