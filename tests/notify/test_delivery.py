"""Exactly once per day and channel: two runs in a row, a channel that fails and is retried next run
while the others are not resent, a 429 then success, a lost store restored from the durable form,
and a dry run that sends and records nothing. No secret reaches the output, the store or the data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from commit_digest.cli import main
from commit_digest.commands.notify import NotifyOptions, notify_site
from commit_digest.notify.http_sender import HttpSender
from commit_digest.settings import load_settings
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import restore_durable, save_durable
from commit_digest.store.notification_ledger import NotificationLedger
from tests.notify.conftest import DAY, NOW, WebhookServer, day_records, ok, write_project

TOKEN_PATH = "/services/T000/B000/XXXXSECRETTOKEN"


def _channels(server: WebhookServer) -> tuple[list[dict[str, object]], dict[str, str]]:
    environ = {
        "SLACK_URL": server.answer(TOKEN_PATH, ok()),
        "WECOM_URL": server.answer("/wecom/key-SECRETKEY123", ok({"errcode": 0, "errmsg": "ok"})),
    }
    listed: list[dict[str, object]] = [
        {"type": "slack", "url_env": "SLACK_URL"},
        {"type": "wecom", "url_env": "WECOM_URL", "platforms": ["rocm"], "language": "en"},
    ]
    return listed, environ


def _run(root: Path, config_file: Path, environ: dict[str, str], http: HttpSender, **options: object) -> list[str]:
    settings = load_settings(config_file)
    with AnalysisStore(root / "cache") as store:
        chosen = NotifyOptions(config_file=config_file, durable_dir=root / "data", **options)  # type: ignore[arg-type]
        summary = notify_site(store, settings, chosen, environ=environ, http=http, now=NOW)
    return summary.lines


def test_two_runs_in_a_row_send_each_day_once_and_a_lost_store_restored_sends_nothing(
    tmp_path: Path, server: WebhookServer, http: HttpSender
) -> None:
    listed, environ = _channels(server)
    records = day_records(6) + day_records(3, day=DAY.replace(day=7))
    config_file = write_project(tmp_path, listed, records)
    with AnalysisStore(tmp_path / "cache") as store:
        save_durable(store, tmp_path / "data")
    first = _run(tmp_path, config_file, environ, http)
    assert len(server.received(TOKEN_PATH)) == 2  # the 7th and the 8th, oldest first
    assert [json.loads(item.body)["blocks"][0]["text"]["text"][-10:] for item in server.received(TOKEN_PATH)] == [
        "2026-01-07",
        "2026-01-08",
    ]
    assert len(server.received("/wecom/key-SECRETKEY123")) == 2
    assert sum("sent" in line for line in first) == 4
    second = _run(tmp_path, config_file, environ, http)
    assert len(server.received(TOKEN_PATH)) == 2
    assert second == ["slack: nothing new to send", "wecom: nothing new to send"]
    # The durable form knows every delivery: a lost store, restored, sends nothing again.
    lines = (tmp_path / "data" / "notifications" / "2026.jsonl").read_text().splitlines()
    assert [json.loads(line)["channel"] for line in lines] == ["slack", "wecom", "slack", "wecom"]
    lost = tmp_path / "lost-store"
    with AnalysisStore(lost) as store:
        restored = restore_durable(store, tmp_path / "data")
        assert restored.notifications_added == 4
        assert len(list(NotificationLedger(store).deliveries())) == 4
    (tmp_path / "cache").rename(tmp_path / "old-cache")
    lost.rename(tmp_path / "cache")
    _run(tmp_path, config_file, environ, http)
    assert len(server.received(TOKEN_PATH)) == 2
    stored = "".join(path.read_text(errors="replace") for path in (tmp_path / "data").rglob("*") if path.is_file())
    assert "SECRET" not in stored and "127.0.0.1" not in stored


def test_a_failed_channel_is_retried_next_run_and_the_others_are_not_resent(
    tmp_path: Path, server: WebhookServer, http: HttpSender, sleeps: list[float]
) -> None:
    listed, environ = _channels(server)
    server.answer("/wecom/key-SECRETKEY123", ok({"errcode": 93000, "errmsg": "invalid webhook url"}))
    config_file = write_project(tmp_path, listed, day_records(6))
    first = _run(tmp_path, config_file, environ, http)
    assert any(line.startswith("failed: wecom (wecom) 2026-01-08: HTTP 200, errcode 93000") for line in first)
    assert not any("SECRETKEY123" in line or "127.0.0.1" in line for line in first)
    assert len(server.received(TOKEN_PATH)) == 1
    server.answer("/wecom/key-SECRETKEY123", ok({"errcode": 0, "errmsg": "ok"}))
    second = _run(tmp_path, config_file, environ, http)
    assert "wecom: sent 2026-01-08 (2 commit lines)" in second
    assert len(server.received(TOKEN_PATH)) == 1  # slack had its day: not resent
    assert sleeps == []  # a refusal is not retried within the run


def test_rate_limits_are_retried_with_the_wait_the_service_names(
    tmp_path: Path, server: WebhookServer, http: HttpSender, sleeps: list[float]
) -> None:
    listed, environ = _channels(server)
    server.answer(TOKEN_PATH, (429, {"Retry-After": "7"}, b"rate_limited"), ok())
    server.answer(
        "/wecom/key-SECRETKEY123",
        ok({"errcode": 45009, "errmsg": "api freq out of limit"}),
        ok({"errcode": 45009, "errmsg": "api freq out of limit"}),
        ok({"errcode": 0, "errmsg": "ok"}),
    )
    config_file = write_project(tmp_path, listed, day_records(6))
    lines = _run(tmp_path, config_file, environ, http)
    assert sum("sent" in line for line in lines) == 2
    assert sleeps == [7.0, 2.0, 4.0]  # Slack's Retry-After, then WeCom's doubling backoff
    assert len(server.received(TOKEN_PATH)) == 2


def test_a_wait_past_the_limit_fails_the_channel_without_sleeping(
    tmp_path: Path, server: WebhookServer, http: HttpSender, sleeps: list[float]
) -> None:
    listed, environ = _channels(server)
    server.answer(TOKEN_PATH, (429, {"Retry-After": "3600"}, b"rate_limited"))
    config_file = write_project(tmp_path, listed[:1], day_records(6))
    lines = _run(tmp_path, config_file, environ, http)
    assert lines[0].startswith("failed: slack (slack) 2026-01-08: rate limited (HTTP 429); the service asks to wait")
    assert sleeps == []


def test_dry_run_prints_the_messages_and_sends_and_records_nothing(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    listed, environ = _channels(server)
    config_file = write_project(tmp_path, listed, day_records(6))
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    arguments = ["notify", "-f", str(config_file), "--day", "2026-01-08", "--dry-run"]
    assert main([*arguments, "--durable-dir", str(tmp_path / "data")]) == 0
    said = capsys.readouterr().out
    assert "== slack (slack) 2026-01-08" in said and '"blocks"' in said
    assert "SECRET" not in said and "127.0.0.1" not in said
    assert server.received(TOKEN_PATH) == []
    with AnalysisStore(tmp_path / "cache") as store:
        assert list(NotificationLedger(store).deliveries()) == []


def test_a_missing_variable_fails_its_channel_only(tmp_path: Path, server: WebhookServer, http: HttpSender) -> None:
    listed, environ = _channels(server)
    del environ["WECOM_URL"]
    config_file = write_project(tmp_path, listed, day_records(6))
    lines = _run(tmp_path, config_file, environ, http)
    assert (
        "failed: wecom (wecom) 2026-01-08: the environment variable WECOM_URL is not set; the next run retries" in lines
    )
    assert "slack: sent 2026-01-08 (4 commit lines)" in lines


def test_a_day_not_complete_yet_is_refused_and_nothing_is_sent(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sent before its last commits are fetched, a day would be recorded as delivered and the
    rest of it never sent: --day names only a complete day (--dry-run may look at any)."""
    listed, environ = _channels(server)
    config_file = write_project(tmp_path, listed, day_records(6))
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    arguments = ["notify", "-f", str(config_file), "--day", "2999-01-01", "--durable-dir", str(tmp_path / "data")]
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert "--day 2999-01-01 is not complete yet" in error and error.count("\n") == 1
    assert server.received(TOKEN_PATH) == []
    with AnalysisStore(tmp_path / "cache") as store:
        assert list(NotificationLedger(store).deliveries()) == []
    assert main([*arguments, "--dry-run"]) == 0


def test_each_language_names_the_site_as_its_pages_do(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The top-level site_name, unless the plugin block names the channel's language otherwise."""
    listed, environ = _channels(server)
    config_file = write_project(tmp_path, listed, day_records(6))
    config = yaml.safe_load(config_file.read_text(encoding="utf-8"))
    config["site_name"] = "Acme Rocket digest"
    for entry in config["plugins"]:
        if isinstance(entry, dict) and "commit-digest" in entry:
            entry["commit-digest"].pop("site_name", None)
    config_file.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["notify", "-f", str(config_file), "--day", "2026-01-08", "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert said.count("Acme Rocket digest") >= 2  # the zh channel and the en one
    assert "Daily commit digest" not in said and "vLLM" not in said


def test_the_notify_command_sends_the_days_brief_first(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The brief stored by `brief` reaches the day's message through the command, not only the composer:
    the whole day's to a channel of every platform, ROCm's to the channel of ROCm alone."""
    from datetime import UTC, datetime

    from commit_digest.models import Provenance
    from commit_digest.store.briefs import BriefSentence, DayBrief

    listed, environ = _channels(server)
    records = day_records(6)
    config_file = write_project(tmp_path, listed, records)
    cited = (records[0].commit.short_sha,)
    written = Provenance(analyzer="llm:gpt-test", created_at=datetime(2026, 1, 9, 3, 0, tzinfo=UTC))
    with AnalysisStore(tmp_path / "cache") as store:
        for platform, text in ((None, "今天的重点是引擎的一处修复。"), ("rocm", "ROCm 上引擎修复了一处崩溃。")):
            sentences = {"zh": (BriefSentence(text=text, commits=cited),)}
            english = {
                "en": (BriefSentence(text=f"{platform or 'Every platform'}: the engine fix matters.", commits=cited),)
            }
            store.put_brief(
                DayBrief(
                    day=DAY.date(),
                    platform=platform,
                    texts={**sentences, **english},
                    commits=cited,
                    inputs="0" * 32,
                    provenance=written,
                )
            )
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["notify", "-f", str(config_file), "--day", DAY.date().isoformat(), "--dry-run"]) == 0
    said = capsys.readouterr().out
    assert "今天的重点是引擎的一处修复。" in said  # the slack channel, zh, every platform
    assert "rocm: the engine fix matters." in said  # the wecom channel, en, ROCm alone
    assert "Every platform: the engine fix matters." not in said and "ROCm 上引擎修复了一处崩溃。" not in said
