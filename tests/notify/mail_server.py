"""A real SMTP server for the e-mail tests: aiosmtpd on 127.0.0.1, an inbox that keeps what arrives
and a login check that records whether the login came over TLS.

The authenticator answers a wrong password with ``handled=False``: aiosmtpd's ``AuthResult``
defaults to ``handled=True``, which means "the authenticator has already sent the reply", so a
refusal that keeps the default leaves the client waiting for a 535 that never comes (smtplib then
waits out its whole timeout).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

USER = "digest"
PASSWORD = "pa55word-Secret"


@dataclass(frozen=True)
class Login:
    user: bytes
    password: bytes
    tls: str | None  # the TLS version the login came over ("TLSv1.3"), None in clear


@dataclass
class Inbox:
    mails: list[tuple[str, list[str], bytes]] = field(default_factory=list)
    logins: list[Login] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.mails.append((envelope.mail_from or "", list(envelope.rcpt_tos), bytes(envelope.content or b"")))
        return "250 OK"

    def authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, auth_data: object
    ) -> AuthResult:
        assert isinstance(auth_data, LoginPassword)
        channel = server.transport.get_extra_info("ssl_object") if server.transport is not None else None
        self.logins.append(Login(auth_data.login, auth_data.password, channel.version() if channel else None))
        accepted = auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode()
        return AuthResult(success=accepted, handled=False)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def smtp_server(inbox: Inbox, **options: Any) -> Iterator[int]:
    """Runs aiosmtpd for ``inbox`` with ``options`` (``tls_context``, ``ssl_context``, …); yields its port."""
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, authenticator=inbox.authenticate, **options)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()
