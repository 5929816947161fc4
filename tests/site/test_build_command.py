"""``commit-digest build``: the site from any store, without editing mkdocs.yml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.store.analysis_store import AnalysisStore
from tests.site.conftest import PROJECT, project_config
from tests.site.factories import sample_records, sha_for


@pytest.mark.slow
def test_build_command_publishes_another_store_into_another_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other_store = tmp_path / "elsewhere" / "store"
    with AnalysisStore(other_store) as store:
        for record in sample_records()[:3]:
            store.put(record)
    (tmp_path / "docs").symlink_to(PROJECT / "docs")
    config_file = tmp_path / "mkdocs.yml"
    config = project_config(cache_dir="does-not-exist")  # the --cache flag replaces it
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")

    code = main(
        [
            "build",
            "-f",
            str(config_file),
            "--cache",
            str(other_store),
            "--site-dir",
            str(tmp_path / "out"),
            "--strict",
        ]
    )

    assert code == 0, capsys.readouterr().err
    assert f"site written to {tmp_path / 'out'}" in capsys.readouterr().out
    assert (tmp_path / "out" / "commits" / sha_for("medium-1")[:12] / "index.html").is_file()
    assert (tmp_path / "out" / "days" / "2026-01-15" / "index.html").is_file()


def test_build_command_names_a_config_without_the_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text("site_name: plain\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    assert main(["build", "-f", str(config_file)]) == 2
    assert "does not enable the commit-digest plugin" in capsys.readouterr().err


def test_cli_does_not_import_mkdocs_until_a_build_runs() -> None:
    code = "import sys, commit_digest.cli as c; c.build_parser(); print('mkdocs' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
