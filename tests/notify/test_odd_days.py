"""Days no test day looks like: a title of only spaces, a day with no commit at all. (A title of
10,000 characters never reaches here: the store's model keeps 2,000, the message 200.)"""

from __future__ import annotations

import re
from pathlib import Path

from commit_digest.commands.notify import NotifyOptions, notify_site
from commit_digest.notify.http_sender import HttpSender
from commit_digest.settings import load_settings
from commit_digest.store.analysis_store import AnalysisStore
from tests.notify.conftest import NOW, WebhookServer, day_records, ok, write_project


def _send(tmp_path: Path, server: WebhookServer, http: HttpSender, titles: tuple[str, ...], count: int = 0) -> str:
    environ = {"WECOM_URL": server.answer("/wecom/key", ok({"errcode": 0, "errmsg": "ok"}))}
    records = day_records(count, titles=titles)
    config_file = write_project(tmp_path, [{"type": "wecom", "url_env": "WECOM_URL", "min_importance": "low"}], records)
    with AnalysisStore(tmp_path / "cache") as store:
        summary = notify_site(
            store,
            load_settings(config_file),
            NotifyOptions(config_file=config_file),
            environ=environ,
            http=http,
            now=NOW,
        )
    assert summary.ok, summary.lines
    received = server.received("/wecom/key")
    return received[0].json["markdown"]["content"] if received else ""


def test_a_title_of_only_spaces_still_gives_its_commit_a_link_to_click(
    tmp_path: Path, server: WebhookServer, http: HttpSender
) -> None:
    content = _send(tmp_path, server, http, (" \t  ",))
    # "[](url)" renders as nothing: the commit would have no line to open.
    assert "[](" not in content
    assert re.search(r"\[[^\]]+\]\(https://[^)]+/commits/", content)


def test_an_empty_day_sends_nothing_and_fails_nothing(tmp_path: Path, server: WebhookServer, http: HttpSender) -> None:
    assert _send(tmp_path, server, http, ()) == ""
