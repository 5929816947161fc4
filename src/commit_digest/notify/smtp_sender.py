"""Sending a mail over SMTP with the standard library: STARTTLS (port 587), TLS (465) or none.

The host, the login and the password come from the environment (the channel names the variables)
and never appear in an error: a failure is one line that names the variables (``login_source``),
never their values, nor the password's base64 forms that AUTH PLAIN and LOGIN put on the wire.
TLS checks the server's certificate and host name against the system's authorities (OpenSSL reads
``SSL_CERT_FILE`` too; ``ssl_context`` lets a caller bring its own). Every connection has a
timeout: a server that stops answering fails the channel after ``timeout`` seconds, never hangs
the night.
"""

from __future__ import annotations

import base64
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage

from commit_digest.notify.http_sender import SendError, redacted

TIMEOUT_SECONDS = 30.0
_SERVER_TEXT_LIMIT = 200


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    security: str  # starttls, tls or none
    user: str | None = None
    password: str | None = None
    login_source: str = "the user name and password"  # what a refused login tells to check


class LoginRefusedError(SendError):
    """The server refused the user name or the password (SMTP 535 and the like)."""


class RecipientsRefusedError(SendError):
    """The mail went out, but the server refused some of its recipients: the others have it."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _server_reply(error: smtplib.SMTPResponseException) -> str:
    reply = error.smtp_error
    text = reply.decode("utf-8", errors="replace") if isinstance(reply, bytes) else str(reply)
    return _one_line(f"{error.smtp_code} {text}")[:_SERVER_TEXT_LIMIT]


def _timed_out(error: BaseException) -> bool:
    # smtplib turns a socket timeout into SMTPServerDisconnected("Connection unexpectedly closed: …").
    return isinstance(error, TimeoutError) or isinstance(error.__context__, TimeoutError)


def _reason(error: smtplib.SMTPException | OSError, timeout: float) -> str:
    if isinstance(error, ssl.SSLCertVerificationError):
        why = error.verify_message.rstrip(".")
        return f"the server's TLS certificate was refused ({why}); no login and no mail were sent"
    if _timed_out(error):
        return f"the server did not answer within {timeout:g} s"
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{type(error).__name__}: {_server_reply(error)}"
    return _one_line(f"{type(error).__name__}: {error}")


def _secrets(server: SmtpServer) -> list[str]:
    user, password = server.user or "", server.password or ""
    wire = [f"\0{user}\0{password}", user, password]  # AUTH PLAIN's one token, AUTH LOGIN's two
    return [server.host, user, password, *(base64.b64encode(item.encode()).decode() for item in wire if item)]


def _hidden(text: str, server: SmtpServer) -> str:
    text = redacted(text, _secrets(server))
    if server.password:  # a password is hidden however short it is
        text = text.replace(server.password, "***")
    return text


def send_mail(
    mail: EmailMessage,
    server: SmtpServer,
    *,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> None:
    """Sends ``mail`` to its recipients; raises SendError (LoginRefusedError for a refused login)."""
    context = ssl_context or ssl.create_default_context()
    try:
        if server.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(server.host, server.port, timeout=timeout, context=context)
        else:
            client = smtplib.SMTP(server.host, server.port, timeout=timeout)
        with client:
            if server.security == "starttls":
                client.starttls(context=context)
            if server.user is not None and server.password is not None:
                client.login(server.user, server.password)
            refused = client.send_message(mail)
    except smtplib.SMTPAuthenticationError as error:
        reason = f"SMTP: the server refused the login ({_server_reply(error)}): check {server.login_source}"
        raise LoginRefusedError(_hidden(reason, server)) from error
    except (smtplib.SMTPException, OSError) as error:
        raise SendError(_hidden(f"SMTP: {_reason(error, timeout)}", server)) from error
    if refused:
        raise RecipientsRefusedError(
            f"SMTP: the server refused {len(refused)} of the recipients; the others have the mail"
        )
