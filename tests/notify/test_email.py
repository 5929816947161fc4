"""E-mail over a real SMTP server (aiosmtpd on 127.0.0.1): a multipart mail with a plain-text and
an HTML part, to the whole list, logged in with the credentials from the environment, hostile
titles escaped in the HTML; the mail is read back with Python's ``email`` package."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session

from commit_digest.notify.http_sender import HttpSender
from tests.notify.conftest import HOSTILE_TITLES, SITE_URL, day_records, write_project
from tests.notify.test_delivery import _run


class Inbox:
    def __init__(self) -> None:
        self.mails: list[tuple[str, list[str], bytes]] = []
        self.logins: list[tuple[bytes, bytes]] = []

    async def handle_DATA(self, server: object, session: Session, envelope: Envelope) -> str:
        self.mails.append((envelope.mail_from or "", list(envelope.rcpt_tos), bytes(envelope.content or b"")))
        return "250 OK"

    def authenticate(
        self, server: object, session: Session, envelope: Envelope, mechanism: str, auth_data: object
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        self.logins.append((auth_data.login, auth_data.password))
        return AuthResult(success=auth_data.password == b"pa55word")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = _free_port()
    controller = Controller(
        inbox, hostname="127.0.0.1", port=port, authenticator=inbox.authenticate, auth_require_tls=False
    )
    controller.start()
    yield inbox, port
    controller.stop()


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
    channel = {
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
    }
    environ = {"SMTP_HOST": "127.0.0.1", "SMTP_USER": "digest", "SMTP_PASSWORD": "pa55word"}
    config_file = write_project(tmp_path, [channel], day_records(3, titles=HOSTILE_TITLES))
    lines = _run(tmp_path, config_file, environ, http)
    assert lines == ["email: sent 2026-01-08 (11 commit lines)"]
    assert inbox.logins == [(b"digest", b"pa55word")]
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
