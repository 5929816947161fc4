"""The day as an e-mail: ``multipart/alternative`` with a plain-text part and an HTML part.

Built with the standard ``email`` package (its default policy folds and encodes headers, and
refuses a header with a line break). The HTML escapes every untrusted text (``inert.html_text``);
the plain part holds the text as it is, each link beside its line. A mail has no size a reader
would hit at a day's commits, so it is never cut.
"""

from __future__ import annotations

from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from commit_digest.notify.config import EmailChannel
from commit_digest.notify.idempotency import message_id
from commit_digest.notify.inert import html_text
from commit_digest.notify.message import DayMessage, MessageLine

_STYLE = "font-family: sans-serif; line-height: 1.5"


def _facts(line: MessageLine) -> str:
    return " · ".join(fact for fact in (line.importance, line.change_type) if fact)


def plain_body(message: DayMessage) -> str:
    parts = [message.title, message.counts]
    if message.scope:
        parts.append(message.scope)
    if message.brief:
        parts.append(f"{message.brief.heading}\n{message.brief.text}")
    for section in message.sections:
        lines = []
        for line in section.lines:
            repository = f"[{line.repository}] " if line.repository else ""
            lines.append(f"- {repository}{line.title} ({line.short_sha}, {_facts(line)})\n  {line.url}")
            if line.summary:
                lines.append(f"  {line.summary}")
        parts.append(section.heading + "\n" + "\n".join(lines))
    parts.append(f"{message.open_day}: {message.day_url}")
    parts.append(f"-- \n{message.footer}")
    return "\n\n".join(parts) + "\n"


def _html_line(line: MessageLine) -> str:
    repository = f"[{html_text(line.repository)}] " if line.repository else ""
    text = (
        f'<li>{repository}<a href="{html_text(line.url)}">{html_text(line.title)}</a> '
        f"<code>{html_text(line.short_sha)}</code> ({html_text(_facts(line))})"
    )
    if line.summary:
        text += f"<br><small>{html_text(line.summary)}</small>"
    return text + "</li>"


def html_body(message: DayMessage) -> str:
    parts = [f"<h2>{html_text(message.title)}</h2>", f"<p>{html_text(message.counts)}</p>"]
    if message.scope:
        parts.append(f"<p><small>{html_text(message.scope)}</small></p>")
    if message.brief:
        parts.append(f"<h3>{html_text(message.brief.heading)}</h3>\n<p>{html_text(message.brief.text)}</p>")
    for section in message.sections:
        lines = "\n".join(_html_line(line) for line in section.lines)
        parts.append(f"<h3>{html_text(section.heading)}</h3>\n<ul>\n{lines}\n</ul>")
    parts.append(f'<p><a href="{html_text(message.day_url)}">{html_text(message.open_day)}</a></p>')
    parts.append(f"<p><small>{html_text(message.footer)}</small></p>")
    body = "\n".join(parts)
    return (
        f'<!DOCTYPE html>\n<html lang="{html_text(message.language)}"><head><meta charset="utf-8">'
        f"<title>{html_text(message.subject)}</title></head>\n"
        f'<body style="{_STYLE}">\n{body}\n</body></html>\n'
    )


def email_of(message: DayMessage, channel: EmailChannel, now: datetime) -> EmailMessage:
    mail = EmailMessage()
    mail["Subject"] = message.subject
    mail["From"] = channel.sender
    mail["To"] = ", ".join(channel.to)
    mail["Date"] = format_datetime(now)
    domain = channel.sender.rsplit("@", 1)[1]
    # The same day to the same channel keeps its Message-ID on a resend: mail clients and list
    # servers that drop a second copy of a Message-ID drop it.
    key = message.idempotency_key
    mail["Message-ID"] = message_id(key, domain) if key else make_msgid(domain=domain)
    mail["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to a digest
    mail.set_content(plain_body(message))
    mail.add_alternative(html_body(message), subtype="html")
    return mail
