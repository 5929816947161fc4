"""E-mail over TLS against a real SMTP server (aiosmtpd on 127.0.0.1) with a certificate made here:
STARTTLS required before anything else (port 587's way), and implicit TLS (port 465's). The client
checks the certificate as in production (the default context: chain and host name), trusting the
test's authority through ``SSL_CERT_FILE``; the server sees the login arrive over TLS. A server
whose certificate names another host, or comes from an authority nobody trusts, or that offers no
STARTTLS, fails the channel with one clear line and never receives the password."""

from __future__ import annotations

from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from commit_digest.notify.http_sender import HttpSender
from tests.notify.certificates import Authority, authority
from tests.notify.conftest import day_records, write_project
from tests.notify.mail_server import PASSWORD, USER, Inbox, smtp_server
from tests.notify.test_delivery import _run

HOST = "127.0.0.1"
ENVIRON = {"SMTP_HOST": HOST, "SMTP_USER": USER, "SMTP_PASSWORD": PASSWORD}


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Authority:
    """An authority the client trusts, as it would trust a public one: OpenSSL reads SSL_CERT_FILE."""
    made = authority()
    monkeypatch.setenv("SSL_CERT_FILE", str(made.write(tmp_path / "authority.pem")))
    return made


def _server_options(security: str, context: Any) -> dict[str, Any]:
    if security == "starttls":
        # Nothing but EHLO, STARTTLS and QUIT before TLS; AUTH is not even offered in clear.
        return {"tls_context": context, "require_starttls": True, "auth_require_tls": True}
    # aiosmtpd only counts STARTTLS as TLS for auth_require_tls, so the implicit-TLS server allows
    # AUTH on its (already encrypted) connection; the authenticator checks that it is.
    return {"ssl_context": context, "auth_require_tls": False}


def _channel(port: int, security: str) -> dict[str, object]:
    return {
        "type": "email",
        "host_env": "SMTP_HOST",
        "port": port,
        "user_env": "SMTP_USER",
        "password_env": "SMTP_PASSWORD",
        "security": security,
        "sender": "digest@example.org",
        "to": ["rocm@example.org"],
        "language": "en",
    }


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    yield Inbox()


@pytest.mark.parametrize("security", ["starttls", "tls"])
def test_a_day_goes_over_tls_with_the_certificate_checked(
    tmp_path: Path, trusted: Authority, inbox: Inbox, http: HttpSender, security: str
) -> None:
    context = trusted.server_context(tmp_path, HOST)
    with smtp_server(inbox, **_server_options(security, context)) as port:
        config_file = write_project(tmp_path, [_channel(port, security)], day_records(3))
        lines = _run(tmp_path, config_file, ENVIRON, http)
    assert lines == ["email: sent 2026-01-08 (2 commit lines)"]
    [login] = inbox.logins
    assert (login.user, login.password) == (USER.encode(), PASSWORD.encode())
    assert login.tls is not None and login.tls.startswith("TLSv1.")
    [(sender, recipients, raw)] = inbox.mails
    assert sender == "digest@example.org" and recipients == ["rocm@example.org"]
    mail = message_from_bytes(raw, policy=policy.default)
    assert isinstance(mail, EmailMessage)
    assert mail["Subject"] == "vLLM daily commit digest: 2026-01-08, 3 commits"
    plain = mail.get_body(("plain",))
    assert plain is not None and "Change number 0" in plain.get_content()


@pytest.mark.parametrize("security", ["starttls", "tls"])
@pytest.mark.parametrize(
    ("issuer", "names", "reason"),
    [
        ("trusted", ("mail.example.org",), "IP address mismatch, certificate is not valid for '***'"),
        ("stranger", (HOST,), "unable to get local issuer certificate"),
    ],
    ids=["another-host", "unknown-authority"],
)
def test_a_certificate_the_client_cannot_trust_fails_the_channel_before_the_login(
    tmp_path: Path,
    trusted: Authority,
    inbox: Inbox,
    http: HttpSender,
    security: str,
    issuer: str,
    names: tuple[str, ...],
    reason: str,
) -> None:
    signer = trusted if issuer == "trusted" else authority("an authority nobody trusts")
    context = signer.server_context(tmp_path, *names)
    with smtp_server(inbox, **_server_options(security, context)) as port:
        config_file = write_project(tmp_path, [_channel(port, security)], day_records(3))
        lines = _run(tmp_path, config_file, ENVIRON, http)
        again = _run(tmp_path, config_file, ENVIRON, http)
    assert lines == [
        f"failed: email (email) 2026-01-08: SMTP: the server's TLS certificate was refused ({reason}); "
        "no login and no mail were sent; the next run retries"
    ]
    assert again == lines  # not recorded as sent: the next run tries the day again
    assert PASSWORD not in lines[0] and HOST not in lines[0]
    assert inbox.logins == [] and inbox.mails == []


def test_starttls_the_server_does_not_offer_fails_instead_of_sending_in_clear(
    tmp_path: Path, trusted: Authority, inbox: Inbox, http: HttpSender
) -> None:
    with smtp_server(inbox, auth_require_tls=False) as port:
        config_file = write_project(tmp_path, [_channel(port, "starttls")], day_records(3))
        lines = _run(tmp_path, config_file, ENVIRON, http)
    assert lines == [
        "failed: email (email) 2026-01-08: SMTP: SMTPNotSupportedError: STARTTLS extension not supported by server.; "
        "the next run retries"
    ]
    assert inbox.logins == [] and inbox.mails == []
