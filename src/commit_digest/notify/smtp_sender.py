"""Sending a mail over SMTP with the standard library: STARTTLS (port 587), TLS (465) or none.

The host, the login and the password come from the environment (the channel names the variables)
and never appear in an error: a failure is one line naming the channel's variables, not their
values. TLS checks the server's certificate against the system's authorities (``ssl_context``
lets a test trust its own).
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage

from commit_digest.notify.http_sender import SendError, redacted

TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    security: str  # starttls, tls or none
    user: str | None = None
    password: str | None = None


def send_mail(
    mail: EmailMessage,
    server: SmtpServer,
    *,
    ssl_context: ssl.SSLContext | None = None,
    timeout: float = TIMEOUT_SECONDS,
) -> None:
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
    except (smtplib.SMTPException, OSError) as error:
        secrets = [server.host, server.user or "", server.password or ""]
        raise SendError(redacted(f"SMTP: {type(error).__name__}: {error}", secrets)) from error
    if refused:
        raise SendError(f"SMTP: the server refused {len(refused)} of the recipients")
