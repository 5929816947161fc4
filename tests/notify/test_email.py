"""E-mail over a real SMTP server (aiosmtpd on 127.0.0.1): a multipart mail with a plain-text and
an HTML part, to the whole list, logged in with the credentials from the environment, hostile
titles escaped in the HTML; the mail is read back with Python's ``email`` package. A refused login
fails its channel at once with one line and no password, and the next run sends the day; a server
that never answers fails it after the timeout. (TLS: ``test_email_tls``.)"""

from __future__ import annotations

import base64
import socket
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest

from commit_digest.cli import main
from commit_digest.notify.http_sender import HttpSender, SendError
from commit_digest.notify.smtp_sender import SmtpServer, send_mail
from tests.notify.conftest import HOSTILE_TITLES, SITE_URL, day_records, write_project
from tests.notify.mail_server import PASSWORD, USER, Inbox, Login, smtp_server
from tests.notify.test_delivery import _run


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with smtp_server(inbox, auth_require_tls=False) as port:
        yield inbox, port


def _channel(port: int, **options: object) -> dict[str, object]:
    return {
        "type": "email",
        "host_env": "SMTP_HOST",
        "port": port,
        "user_env": "SMTP_USER",
        "password_env": "SMTP_PASSWORD",
        "security": "none",
        "sender": "digest@example.org",
        "to": ["rocm@example.org", "cuda@example.org"],
        "language": "en",
        "min_importance": "low",
        **options,
    }


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_a_day_arrives_as_a_multipart_mail_to_the_list(
    tmp_path: Path, smtp: tuple[Inbox, int], http: HttpSender
) -> None:
    inbox, port = smtp
    channel = _channel(port)
    environ = {"SMTP_HOST": "127.0.0.1", "SMTP_USER": USER, "SMTP_PASSWORD": PASSWORD}
    config_file = write_project(tmp_path, [channel], day_records(3, titles=HOSTILE_TITLES))
    lines = _run(tmp_path, config_file, environ, http)
    assert lines == ["email: sent 2026-01-08 (11 commit lines)"]
    assert inbox.logins == [Login(USER.encode(), PASSWORD.encode(), tls=None)]
    sender, recipients, raw = inbox.mails[0]
    assert sender == "digest@example.org" and recipients == ["rocm@example.org", "cuda@example.org"]
    mail = message_from_bytes(raw, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    assert mail["Subject"] == "vLLM daily commit digest: 2026-01-08, 11 commits"
    assert mail.get_content_type() == "multipart/alternative"
    plain = mail.get_body(("plain",))
    html_part = mail.get_body(("html",))
    assert plain is not None and html_part is not None
    plain_text, html_text = plain.get_content(), html_part.get_content()
    parser = _Tags()
    parser.feed(html_text)
    assert parser.tags <= {
        "html",
        "head",
        "meta",
        "title",
        "body",
        "h2",
        "h3",
        "p",
        "small",
        "ul",
        "li",
        "a",
        "code",
        "br",
    }
    shown = "".join(parser.text)
    for title in HOSTILE_TITLES:
        expected = title.replace("`", "")
        assert expected in plain_text
        assert expected in shown
    assert f"{SITE_URL}days/2026-01-08/" in plain_text


def test_a_refused_login_fails_the_channel_at_once_and_the_next_run_sends_the_day(
    tmp_path: Path, smtp: tuple[Inbox, int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    inbox, port = smtp
    config_file = write_project(tmp_path, [_channel(port)], day_records(3))
    wrong = "Wrong-Secret-9"
    monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("SMTP_USER", USER)
    monkeypatch.setenv("SMTP_PASSWORD", wrong)
    arguments = ["notify", "-f", str(config_file), "--day", "2026-01-08", "--durable-dir", str(tmp_path / "data")]
    started = time.monotonic()
    assert main(arguments) == 1  # the run is partial
    # aiosmtpd answers 535 at once; a lost answer would have waited out the sender's 30 s timeout.
    assert time.monotonic() - started < 15
    said = capsys.readouterr().out.splitlines()
    assert said == [
        "notify: failed: email (email) 2026-01-08: SMTP: the server refused the login "
        "(535 5.7.8 Authentication credentials invalid): check SMTP_USER and SMTP_PASSWORD; the next run retries"
    ]
    wire = base64.b64encode(f"\0{USER}\0{wrong}".encode()).decode()
    assert wrong not in said[0] and wire not in said[0]
    assert inbox.mails == [] and {login.password for login in inbox.logins} == {wrong.encode()}

    monkeypatch.setenv("SMTP_PASSWORD", PASSWORD)
    assert main(arguments) == 0
    assert capsys.readouterr().out.splitlines() == ["notify: email: sent 2026-01-08 (3 commit lines)"]
    assert len(inbox.mails) == 1


def test_a_server_that_never_answers_fails_the_channel_after_the_timeout() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog does) and never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        server = SmtpServer("127.0.0.1", silent.getsockname()[1], "none", USER, PASSWORD)
        started = time.monotonic()
        with pytest.raises(SendError) as raised:
            send_mail(EmailMessage(), server, timeout=0.5)
    assert time.monotonic() - started < 10
    assert str(raised.value) == "SMTP: the server did not answer within 0.5 s"
