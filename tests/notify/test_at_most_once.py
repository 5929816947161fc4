"""At most once per day and channel, and none lost silently.

The real ``commit-digest notify`` (and ``nightly``) is stopped while the scripted webhook server
holds the answer to a post it has accepted: the service has the day, the sender never heard so.
The next run does not post that day to that channel again: it names it as "outcome unknown"
(exit 1) until ``notify --resend`` posts it on purpose, with the same idempotency key. A ledger
step that cannot be written (a read-only or full durable folder) posts nothing, in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from aiosmtpd.smtp import Envelope

from commit_digest import stopping
from commit_digest.cli import main
from commit_digest.commands.nightly import EXIT_PARTIAL
from commit_digest.notify.idempotency import IDEMPOTENCY_HEADER, idempotency_key, message_id
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import save_durable
from commit_digest.store.notification_ledger import NotificationLedger
from tests.disks import fill_disk, mount_tmpfs
from tests.disks import unmount as unmount_folder
from tests.notify.conftest import SITE_URL, UNANSWERED, WebhookServer, day_records, ok, write_project
from tests.notify.mail_server import Inbox, smtp_server
from tests.site.conftest import PROJECT

SLACK = "/slack/T000/B000/TOKEN"
HOOK = "/hooks/generic"


def _day() -> date:
    """Yesterday (UTC, the project's zone): complete, and within every channel's catch-up days."""
    return datetime.now(UTC).date() - timedelta(days=1)


@pytest.fixture
def project(tmp_path: Path, server: WebhookServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Slack, then a generic webhook (``hook``), one day of commits, a durable form in ``data``."""
    root = tmp_path / "project"
    day = datetime.combine(_day(), datetime.min.time(), UTC)
    channels = [{"type": "slack", "url_env": "SLACK_URL"}, {"type": "webhook", "name": "hook", "url_env": "HOOK_URL"}]
    write_project(root, channels, day_records(6, day=day))
    with AnalysisStore(root / "cache") as store:
        save_durable(store, root / "data")
    monkeypatch.setenv("SLACK_URL", server.answer(SLACK, ok()))
    monkeypatch.setenv("HOOK_URL", server.answer(HOOK, ok()))
    monkeypatch.chdir(root)
    return root


def _arguments(root: Path, *extra: str) -> list[str]:
    return ["-f", str(root / "mkdocs.yml"), "--durable-dir", str(root / "data"), *extra]


def _spawn(command: str, root: Path) -> subprocess.Popen[str]:
    """``command`` (notify, or a night that only builds and notifies) in a session of its own."""
    night = ["--site-dir", str(root / "site"), "--no-fetch", "--offline"] if command == "nightly" else []
    return subprocess.Popen(
        [sys.executable, "-m", "commit_digest.cli", command, *_arguments(root), *night],
        cwd=root,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stopped_while_held(server: WebhookServer, command: str, root: Path, signal_number: int) -> tuple[int, str]:
    """Runs ``command`` in its own session; once the hook's post is accepted and its answer held,
    signals the whole group, then lets the answer go. The exit status and standard error."""
    held = server.hold(HOOK)
    process = _spawn(command, root)
    try:
        held.wait_for_post()
        os.killpg(process.pid, signal_number)
    finally:
        held.release()
        _, error = process.communicate(timeout=120)
    return process.returncode, error


def _days(server: WebhookServer, path: str) -> list[str]:
    if path == HOOK:
        return [item.json["day"] for item in server.received(path)]
    return [item.json["blocks"][0]["text"]["text"][-10:] for item in server.received(path)]


def _notify(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str]]:
    status = main(["notify", *_arguments(root, *extra)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out.splitlines() + captured.err.splitlines()


def _unknown_line(day: str) -> str:
    return f"notify: outcome unknown: hook {day}: a post was attempted at "


def test_a_kill_between_accept_and_record_is_reported_never_reposted_and_resent_on_purpose(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    day = _day().isoformat()
    status, _ = _stopped_while_held(server, "notify", project, signal.SIGKILL)
    assert status == -signal.SIGKILL
    assert _days(server, SLACK) == [day] and _days(server, HOOK) == [day]
    # The attempt is in the durable form already: the data branch knows as much as the store.
    lines = [
        json.loads(line) for line in (project / "data" / "notifications" / f"{day[:4]}.jsonl").read_text().splitlines()
    ]
    assert {(line["channel"], line["outcome"]) for line in lines} == {("slack", "delivered"), ("hook", "unknown")}

    status, said = _notify(project, capsys)
    assert status == 1
    # One day and channel has no known outcome: it is named once, as hook's on that day.
    unknown = [line for line in said if line.startswith("notify: outcome unknown")]
    assert len(unknown) == 1 and unknown[0].startswith(_unknown_line(day)), said
    assert any(f"--resend --day {day} --channel hook" in line for line in said)
    assert "notify: slack: nothing new to send" in said
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]
    assert main(["notify", *_arguments(project)]) == 1  # and again: reported until someone acts
    capsys.readouterr()
    assert len(server.received(HOOK)) == 1

    status, said = _notify(project, capsys, "--resend", "--day", day, "--channel", "hook")
    assert status == 0 and f"notify: hook: sent {day} (4 commit lines)" in said
    first, again = server.received(HOOK)
    assert first.headers[IDEMPOTENCY_HEADER.lower()] == again.headers[IDEMPOTENCY_HEADER.lower()]
    assert first.json["idempotency_key"] == again.json["idempotency_key"] == first.headers["idempotency-key"]
    assert _days(server, SLACK) == [day]

    status, said = _notify(project, capsys)
    assert status == 0 and said == ["notify: slack: nothing new to send", "notify: hook: nothing new to send"]
    assert _days(server, HOOK) == [day, day] and _days(server, SLACK) == [day]
    # A delivered day is not resent, even when asked: one line, nothing posted.
    status, said = _notify(project, capsys, "--resend", "--day", day, "--channel", "hook")
    assert status == 2 and len(said) == 1 and "nothing to resend" in said[0]
    assert len(server.received(HOOK)) == 2


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_while_a_post_is_held_never_posts_a_day_twice(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], signal_number: int
) -> None:
    """A graceful stop: the post in flight lands within the grace and is recorded as delivered,
    the run ends with the stop's status and one line, and the next run posts nothing."""
    day = _day().isoformat()
    status, error = _stopped_while_held(server, "notify", project, signal_number)
    assert "Traceback" not in error
    assert status == 128 + signal_number
    assert [line for line in error.splitlines() if "stopped by" in line] == [error.strip().splitlines()[-1]]
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]
    status, said = _notify(project, capsys)
    assert status == 0 and not any(line.startswith(_unknown_line(day)) for line in said), said
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]


def test_a_night_killed_during_its_notify_step_reports_the_day_and_channel_next_night(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    day = _day().isoformat()
    shutil.copytree(PROJECT / "docs", project / "docs")
    status, _ = _stopped_while_held(server, "nightly", project, signal.SIGKILL)
    assert status == -signal.SIGKILL
    monkeypatch.setenv("COLUMNS", "1000")
    night = ["nightly", *_arguments(project, "--site-dir", str(project / "site"), "--no-fetch", "--offline")]
    assert main(night) == EXIT_PARTIAL
    said = capsys.readouterr().err
    assert f"notify: outcome unknown: hook {day}" in said and "Traceback" not in said
    assert "notify: slack: nothing new to send" in said
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]
    status, _ = _notify(project, capsys, "--resend", "--day", day, "--channel", "hook")
    assert status == 0 and _days(server, HOOK) == [day, day] and _days(server, SLACK) == [day]


def test_a_night_stopped_with_sigterm_during_its_notify_step_never_posts_a_day_twice(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    day = _day().isoformat()
    shutil.copytree(PROJECT / "docs", project / "docs")
    status, error = _stopped_while_held(server, "nightly", project, signal.SIGTERM)
    assert "Traceback" not in error and status == 128 + signal.SIGTERM
    monkeypatch.setenv("COLUMNS", "1000")
    night = ["nightly", *_arguments(project, "--site-dir", str(project / "site"), "--no-fetch", "--offline")]
    status = main(night)
    said = capsys.readouterr().err
    # The post in flight landed within the grace and was recorded: nothing unknown, nothing twice.
    assert status == 0 and "Traceback" not in said and "outcome unknown" not in said, said
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]


def test_a_lost_store_restored_from_the_durable_form_keeps_the_unknown_and_sends_nothing_twice(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    day = _day().isoformat()
    _stopped_while_held(server, "notify", project, signal.SIGKILL)
    shutil.rmtree(project / "cache")  # the Actions cache evicted
    assert main(["restore", *_arguments(project)]) == 0
    capsys.readouterr()
    with AnalysisStore(project / "cache") as store:
        entries = {item.channel: item.outcome for item in NotificationLedger(store).deliveries()}
    assert entries == {"slack": "delivered", "hook": "unknown"}
    status, said = _notify(project, capsys)
    assert status == 1 and any(line.startswith(_unknown_line(day)) for line in said)
    assert _days(server, HOOK) == [day] and _days(server, SLACK) == [day]


def test_deliveries_recorded_before_attempts_were_are_read_as_delivered_and_kept_as_written(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    day = _day().isoformat()
    old = [
        f'{{"channel":"hook","day":"{day}","sent_at":"{day}T03:00:00Z"}}',
        f'{{"channel":"slack","day":"{day}","sent_at":"{day}T03:00:01Z"}}',
    ]
    ledger_file = project / "data" / "notifications" / f"{day[:4]}.jsonl"
    ledger_file.parent.mkdir()
    ledger_file.write_text("".join(line + "\n" for line in old))
    # As the save of that time listed it in the manifest (each file's sha256, no record counts yet).
    manifest_file = project / "data" / "manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["files"][f"notifications/{day[:4]}.jsonl"] = hashlib.sha256(ledger_file.read_bytes()).hexdigest()
    manifest_file.write_text(json.dumps({key: value for key, value in manifest.items() if key != "counts"}))
    shutil.rmtree(project / "cache")
    write_project(project, [], [])  # an empty store; the records come back from the durable form
    assert main(["restore", *_arguments(project)]) == 0
    with AnalysisStore(project / "cache") as store:
        assert {item.channel for item in NotificationLedger(store).deliveries() if item.delivered} == {"hook", "slack"}
        save_durable(store, project / "data")
    assert ledger_file.read_text().splitlines() == old
    capsys.readouterr()


def test_a_post_never_answered_is_not_sent_again_and_stays_reported(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The service read the post and closed the connection: it may have it. Sent again within the
    run, it could be posted twice: it is recorded as outcome unknown instead."""
    day = _day().isoformat()
    server.answer(HOOK, (UNANSWERED, {}, b""))
    status, said = _notify(project, capsys)
    assert status == 1
    assert [line for line in said if "hook" in line] == [
        f"notify: outcome unknown: hook {day}: no answer to the post (RemoteProtocolError: Server disconnected "
        "without sending a response.); it is not posted again on its own: see whether hook has it, and post it "
        f"with `commit-digest notify --resend --day {day} --channel hook`"
    ]
    assert len(server.received(HOOK)) == 1  # not tried again
    status, said = _notify(project, capsys)
    assert status == 1 and any(line.startswith(_unknown_line(day)) for line in said)
    assert len(server.received(HOOK)) == 1 and len(server.received(SLACK)) == 1


@pytest.fixture
def unmount() -> Iterator[list[Path]]:
    mounted: list[Path] = []
    yield mounted
    for folder in mounted:
        unmount_folder(folder)


def _unwritable(root: Path, how: str, mounted: list[Path]) -> None:
    """Makes ``root/data`` a durable form whose ledger cannot be written ``how``."""
    data = root / "data"
    if how == "a file where its folder is":
        (data / "notifications").write_text("not a folder\n")
        return
    if how == "a file in its place":
        shutil.rmtree(data)
        data.write_text("not a folder\n")
        return
    shutil.rmtree(data)
    if not mount_tmpfs(data, "256k"):
        pytest.skip("mounting a tmpfs is not permitted here")
    mounted.append(data)
    with AnalysisStore(root / "cache") as store:
        save_durable(store, data)
    if how == "read-only":
        subprocess.run(["mount", "-o", "remount,ro", str(data)], check=True)
        return
    fill_disk(data)


REMEDIES = {
    "a file where its folder is": "make its notifications/ a folder it can write to",
    "a file in its place": "is not a folder: move what is there away, or give --durable-dir",
    "read-only": "make it writable",
    "full": "free space on its disk",
}


@pytest.mark.parametrize("how", list(REMEDIES))
def test_an_attempt_that_cannot_be_recorded_is_not_posted_and_says_so_in_one_line(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], unmount: list[Path], how: str
) -> None:
    _unwritable(project, how, unmount)
    status, said = _notify(project, capsys)
    assert status == 2
    assert len(said) == 1, said
    assert said[0].startswith(f"notify: stopped: nothing was posted to slack for {_day()}, nor after it: ")
    assert f"the durable folder {project / 'data'} " in said[0]
    assert said[0].endswith(REMEDIES[how])
    assert server.received(SLACK) == [] and server.received(HOOK) == []
    with AnalysisStore(project / "cache") as store:
        assert list(NotificationLedger(store).deliveries()) == []  # the attempt is withdrawn again


def test_a_full_disk_under_the_store_posts_nothing_and_says_so_in_one_line(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], unmount: list[Path]
) -> None:
    cache = project / "cache"
    shutil.move(cache, project / "cache-before")
    if not mount_tmpfs(cache, "1m"):
        pytest.skip("mounting a tmpfs is not permitted here")
    unmount.append(cache)
    shutil.copytree(project / "cache-before", cache, dirs_exist_ok=True)
    fill_disk(cache)
    status, said = _notify(project, capsys)
    assert status == 2 and len(said) == 1 and str(cache) in said[0], said
    assert server.received(SLACK) == [] and server.received(HOOK) == []


def test_a_delivery_the_durable_form_could_not_take_is_written_there_by_the_next_run(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], unmount: list[Path]
) -> None:
    """The folder turns read-only while the hook's post is held: posted, recorded in the store, not
    in the durable form. The run says so and stops; the next run writes it there first."""
    day = _day().isoformat()
    data = project / "data"
    shutil.rmtree(data)
    if not mount_tmpfs(data, "1m"):
        pytest.skip("mounting a tmpfs is not permitted here")
    unmount.append(data)
    with AnalysisStore(project / "cache") as store:
        save_durable(store, data)
    held = server.hold(HOOK)
    process = _spawn("notify", project)
    try:
        held.wait_for_post()
        subprocess.run(["mount", "-o", "remount,ro", str(data)], check=True)
    finally:
        held.release()
        said, error = process.communicate(timeout=120)
    assert process.returncode == 2 and "Traceback" not in error
    assert said.splitlines()[-1].startswith(
        f"notify: stopped: {day} was posted to hook but its delivery could not be recorded everywhere"
    )
    ledger_file = data / "notifications" / f"{day[:4]}.jsonl"
    assert '"outcome":"unknown"' in ledger_file.read_text()
    subprocess.run(["mount", "-o", "remount,rw", str(data)], check=True)
    status, said_now = _notify(project, capsys)
    assert status == 0 and said_now == ["notify: slack: nothing new to send", "notify: hook: nothing new to send"]
    assert [json.loads(line)["outcome"] for line in ledger_file.read_text().splitlines()] == ["delivered"] * 2
    assert len(server.received(HOOK)) == 1 and len(server.received(SLACK)) == 1


def test_a_stop_asked_for_posts_nothing_more(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = iter([False, True])
    monkeypatch.setattr(stopping, "stop_requested", lambda: next(asked))
    status, said = _notify(project, capsys)
    assert status == 1
    assert (
        f"notify: stopped: asked to stop before posting {_day()} to hook: it and what follows wait for the next run"
        in said
    )
    assert len(server.received(SLACK)) == 1 and server.received(HOOK) == []
    monkeypatch.setattr(stopping, "stop_requested", lambda: False)
    assert _notify(project, capsys)[0] == 0
    assert len(server.received(SLACK)) == 1 and len(server.received(HOOK)) == 1


def test_resend_needs_one_day_and_one_named_channel(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, said = _notify(project, capsys, "--resend", "--channel", "hook")
    assert status == 2 and len(said) == 1 and "give --day and --channel" in said[0]
    status, said = _notify(project, capsys, "--resend", "--day", _day().isoformat(), "--channel", "nope")
    assert status == 2 and len(said) == 1 and "--channel nope: no channel of notify: is called so" in said[0]


def _mail_channel(port: int, to: list[str]) -> dict[str, object]:
    """An e-mail channel to the local SMTP server, in clear (it is on this machine)."""
    return {
        "type": "email",
        "name": "mail",
        "host_env": "SMTP_HOST",
        "port": port,
        "security": "none",
        "sender": "digest@example.org",
        "to": to,
    }


def test_an_email_resent_keeps_its_message_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = Inbox()
    day = _day()
    with smtp_server(inbox, auth_require_tls=False) as port:
        channel = _mail_channel(port, ["rocm@example.org"])
        write_project(tmp_path, [channel], day_records(6, day=datetime.combine(day, datetime.min.time(), UTC)))
        monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
        arguments = ["notify", "-f", str(tmp_path / "mkdocs.yml"), "--durable-dir", str(tmp_path / "data")]
        assert main(arguments) == 0
        # The outcome of that post lost (as after a kill): its attempt alone is left.
        with AnalysisStore(tmp_path / "cache") as store:
            NotificationLedger(store).attempt("mail", day, datetime.now(UTC))
        assert main(arguments) == 1
        assert main([*arguments, "--resend", "--day", day.isoformat(), "--channel", "mail"]) == 0
    capsys.readouterr()
    first, again = (message_from_bytes(content, policy=policy.default)["Message-ID"] for _, _, content in inbox.mails)
    assert first == again == message_id(idempotency_key(SITE_URL, day, "mail"), "example.org")


class _RefusingInbox(Inbox):
    """Refuses the recipients at ``nobody@``: the mail goes to the others."""

    async def handle_RCPT(
        self, server: object, session: object, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"


def test_a_mail_some_recipients_refused_is_delivered_to_the_others_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inbox = _RefusingInbox()
    day = _day()
    with smtp_server(inbox, auth_require_tls=False) as port:
        channel = _mail_channel(port, ["rocm@example.org", "nobody@example.org"])
        write_project(tmp_path, [channel], day_records(6, day=datetime.combine(day, datetime.min.time(), UTC)))
        monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
        arguments = ["notify", "-f", str(tmp_path / "mkdocs.yml"), "--durable-dir", str(tmp_path / "data")]
        assert main(arguments) == 1
        said = capsys.readouterr().out
        assert (
            f"notify: failed: mail (email) {day}: SMTP: the server refused 1 of the recipients; the others have "
            "the mail; not sent again"
        ) in said
        assert main(arguments) == 0
        assert capsys.readouterr().out == "notify: mail: nothing new to send\n"
    assert [recipients for _, recipients, _ in inbox.mails] == [["rocm@example.org"]]


def test_an_unknown_outcome_seen_to_have_arrived_is_marked_delivered_without_a_post(
    project: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    day = _day().isoformat()
    status, _ = _stopped_while_held(server, "notify", project, signal.SIGKILL)
    assert status == -signal.SIGKILL and _days(server, HOOK) == [day]

    status, said = _notify(project, capsys, "--mark-delivered", "--day", day, "--channel", "hook")
    assert status == 0 and said == [f"notify: hook: {day} recorded as delivered, not posted again"]
    lines = [
        json.loads(line) for line in (project / "data" / "notifications" / f"{day[:4]}.jsonl").read_text().splitlines()
    ]
    assert {(line["channel"], line["outcome"]) for line in lines} == {("slack", "delivered"), ("hook", "delivered")}
    status, said = _notify(project, capsys)
    assert status == 0 and "notify: hook: nothing new to send" in said
    assert _days(server, HOOK) == [day]  # never posted again

    status, said = _notify(project, capsys, "--mark-delivered", "--day", day, "--channel", "hook")
    assert status == 2 and len(said) == 1 and "recorded as delivered already" in said[0]
    status, said = _notify(project, capsys, "--mark-delivered", "--channel", "hook")
    assert status == 2 and len(said) == 1 and "give --day and --channel" in said[0]
