"""`nightly` ends with notify: after the build, each channel gets the new day once; a failing
channel makes the night partial (exit 1) and the site stays as built; the next night retries it."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.commands.nightly import EXIT_COMPLETE, EXIT_PARTIAL
from tests.notify.conftest import WebhookServer, day_records, ok, write_project
from tests.site.conftest import PROJECT


def _night(root: Path) -> int:
    arguments = ["-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data"), "--site-dir", str(root / "site")]
    return main(["nightly", *arguments, "--no-fetch", "--offline"])


def test_a_night_notifies_after_the_build_and_a_failed_channel_makes_it_partial(
    tmp_path: Path, server: WebhookServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"
    yesterday = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    channels = [{"type": "slack", "url_env": "SLACK_URL"}, {"type": "discord", "url_env": "DISCORD_URL"}]
    write_project(root, channels, day_records(6, day=yesterday))
    shutil.copytree(PROJECT / "docs", root / "docs")
    monkeypatch.setenv("SLACK_URL", server.answer("/slack/TOKEN", ok()))
    monkeypatch.setenv("DISCORD_URL", server.answer("/discord/TOKEN", (404, {}, b'{"message": "Unknown Webhook"}')))
    monkeypatch.chdir(root)
    monkeypatch.setenv("COLUMNS", "1000")
    assert _night(root) == EXIT_PARTIAL
    said = capsys.readouterr().err
    assert f"notify: slack: sent {yesterday.date()}" in said
    assert "notify: failed: discord (discord)" in said and "TOKEN" not in said
    assert (root / "site" / "index.html").exists()
    assert (root / "data" / "notifications").is_dir()

    monkeypatch.setenv("DISCORD_URL", server.answer("/discord/TOKEN", (204, {}, b"")))
    assert _night(root) == EXIT_COMPLETE
    said = capsys.readouterr().err
    assert f"notify: discord: sent {yesterday.date()}" in said
    assert "notify: slack: nothing new to send" in said
    assert len(server.received("/slack/TOKEN")) == 1
