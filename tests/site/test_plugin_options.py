"""The plugin block of mkdocs.yml is read twice, by the plugin and by the CLI: every option the
plugin takes is a setting the CLI validates too, or one it knows to leave to the site."""

from __future__ import annotations

from pathlib import Path

from commit_digest.settings import SITE_ONLY_OPTIONS, DigestSettings, load_settings
from commit_digest_mkdocs.config import PluginConfig


def test_every_plugin_option_is_a_setting_or_site_only() -> None:
    options = set(PluginConfig().keys())
    settings = set(DigestSettings.model_fields)
    assert options - settings == set(SITE_ONLY_OPTIONS) - {"enabled"}
    assert set(PluginConfig().digest_options()) <= settings


def test_the_cli_reads_a_block_with_every_site_only_option(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "plugins:\n  - commit-digest:\n      workers: 2\n      page_size: 20\n      days_on_home: 3\n"
        "      site_name: {zh: x}\n      site_description: {zh: y}\n      enabled: true\n"
        "      site_size_limit: 2GB\n",
        encoding="utf-8",
    )
    assert load_settings(config).site_size_limit == 2_000_000_000
