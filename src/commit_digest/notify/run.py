"""One notify run: for each channel, each new day's message, sent once and recorded at once.

A channel's days are the complete days (``complete_before``: up to the last finished fetch) of
its last ``catch_up_days`` that the ledger has not seen for it, oldest first; ``asked`` names one
day instead. A message the service accepted is written to the ledger (and, through
``after_delivery``, to the durable form) before anything else happens, so a rerun sends nothing
twice. A channel that fails stops at that day (its later days wait, so they arrive in order) and
the run goes on with the next channel; the failure makes the run partial and the next run tries
the day again. Nothing here reads the environment: the command passes it in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage

from commit_digest.notify.compose import Composer
from commit_digest.notify.config import EmailChannel, WebhookChannel
from commit_digest.notify.email_message import email_of
from commit_digest.notify.fitting import TooLargeError
from commit_digest.notify.http_sender import HttpSender, SendError
from commit_digest.notify.message import DayMessage
from commit_digest.notify.services import SERVICES
from commit_digest.notify.smtp_sender import SmtpServer, send_mail
from commit_digest.site.model.index import Day
from commit_digest.store.notification_ledger import Delivery, NotificationLedger


@dataclass(frozen=True)
class Outbox:
    """How messages leave (or, with ``dry_run``, are only shown)."""

    http: HttpSender
    environ: Mapping[str, str]
    mail: Callable[[EmailMessage, SmtpServer], None] = send_mail
    dry_run: bool = False
    show: Callable[[str], None] = print
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)


@dataclass(frozen=True)
class ChannelPlan:
    channel: WebhookChannel | EmailChannel
    composer: Composer
    days: Mapping[date, Day]  # the site's days in the channel's language (only those read)


@dataclass
class NotifySummary:
    sent: int = 0
    failed: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0


class MissingSecretError(SendError):
    """An environment variable the channel names is not set."""


def candidate_days(
    channel: WebhookChannel | EmailChannel,
    ledger: NotificationLedger,
    *,
    today: date,
    complete_before: date,
    asked: date | None,
) -> list[date]:
    """The days to send to ``channel`` now, oldest first."""
    if asked is not None:
        wanted = [asked]
    else:
        first = today - timedelta(days=channel.catch_up_days)
        wanted = [first + timedelta(days=offset) for offset in range((complete_before - first).days)]
    return [day for day in wanted if not ledger.sent(channel.key, day)]


def _variable(environ: Mapping[str, str], name: str | None, *, dry_run: bool) -> str | None:
    if name is None:
        return None
    value = environ.get(name, "").strip()
    if not value and not dry_run:
        raise MissingSecretError(f"the environment variable {name} is not set")
    return value or None


def _smtp_server(channel: EmailChannel, environ: Mapping[str, str], dry_run: bool) -> SmtpServer:
    return SmtpServer(
        host=_variable(environ, channel.host_env, dry_run=dry_run) or "",
        port=channel.port,
        security=channel.security,
        user=_variable(environ, channel.user_env, dry_run=dry_run),
        password=_variable(environ, channel.password_env, dry_run=dry_run),
        login_source=f"{channel.user_env} and {channel.password_env}",
    )


def _deliver_one(channel: WebhookChannel | EmailChannel, message: DayMessage, outbox: Outbox) -> None:
    """Sends (or shows) one message; raises SendError or TooLargeError."""
    now = outbox.clock()
    heading = f"== {channel.key} ({channel.type}) {message.day}"
    if isinstance(channel, EmailChannel):
        server = _smtp_server(channel, outbox.environ, outbox.dry_run)
        mail = email_of(message, channel, now)
        if outbox.dry_run:
            outbox.show(f"{heading}\n{mail.as_string()}")
        else:
            outbox.mail(mail, server)
        return
    service = SERVICES[channel.type]
    payload = service.payload(message)
    if outbox.dry_run:
        outbox.show(f"{heading}\n{json.dumps(payload, ensure_ascii=False, indent=2)}")
        return
    url = _variable(outbox.environ, channel.url_env, dry_run=False) or ""
    secret = _variable(outbox.environ, channel.secret_env, dry_run=False)
    request = service.request(payload, url, secret, now)
    outbox.http.send(request, service.judge, secrets=[secret or ""])


def deliver(
    plans: Sequence[ChannelPlan],
    ledger: NotificationLedger,
    outbox: Outbox,
    *,
    today: date,
    complete_before: date,
    asked: date | None = None,
    after_delivery: Callable[[], None] = lambda: None,
) -> NotifySummary:
    summary = NotifySummary()
    for plan in plans:
        channel = plan.channel
        days = candidate_days(channel, ledger, today=today, complete_before=complete_before, asked=asked)
        sent_before = summary.sent
        for day in days:
            site_day = plan.days.get(day)
            message = plan.composer.message(site_day) if site_day is not None else None
            if message is None:
                continue  # no commit it follows that day: nothing to say
            try:
                _deliver_one(channel, message, outbox)
            except (SendError, TooLargeError) as error:
                summary.failed += 1
                summary.lines.append(f"failed: {channel.key} ({channel.type}) {day}: {error}; the next run retries")
                break
            if outbox.dry_run:
                summary.lines.append(f"{channel.key}: {day} shown, not sent (--dry-run)")
                continue
            ledger.record(Delivery(channel=channel.key, day=day, sent_at=outbox.clock()))
            after_delivery()
            summary.sent += 1
            shown = f"{message.line_count} commit lines"
            summary.lines.append(f"{channel.key}: sent {day} ({shown})")
        if (
            summary.sent == sent_before
            and not outbox.dry_run
            and not any(line.startswith(f"failed: {channel.key} ") for line in summary.lines)
        ):
            summary.lines.append(f"{channel.key}: nothing new to send")
    return summary
