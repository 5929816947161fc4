"""One notify run: for each channel, each new day's message, posted at most once.

A channel's days are the complete days (``complete_before``: up to the last finished fetch) of
its last ``catch_up_days`` that the ledger has no entry for, oldest first; ``asked`` names one
day instead. Each post is recorded twice (``notification_ledger``): its attempt before it leaves,
its outcome once the service answered, each written to the store and, through ``record``, to the
durable form before the run goes on. An attempt that cannot be recorded is not posted, and the
run stops there (``fault``): it could not record the next one either. A run stopped between the
two leaves the attempt's outcome unknown: later runs do not post that day to that channel again,
they report it (the run is partial) until it is posted on purpose (``resend``). A channel that
fails stops at that day (its later days wait, so they arrive in order) and the run goes on with
the next channel; the failure makes the run partial and the next run tries the day again. A stop
asked for (``stop_requested``) posts nothing more. Nothing here reads the environment: the
command passes it in.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.message import EmailMessage
from functools import partial

from commit_digest import stopping
from commit_digest.errors import CommitDigestError, StoreError
from commit_digest.notify.compose import Composer
from commit_digest.notify.config import EmailChannel, WebhookChannel
from commit_digest.notify.email_message import email_of
from commit_digest.notify.fitting import TooLargeError
from commit_digest.notify.http_sender import HttpSender, OutcomeUnknownError, SendError
from commit_digest.notify.idempotency import idempotency_key
from commit_digest.notify.message import DayMessage
from commit_digest.notify.services import SERVICES
from commit_digest.notify.smtp_sender import RecipientsRefusedError, SmtpServer, send_mail
from commit_digest.site.model.index import Day
from commit_digest.store.notification_ledger import Delivery, NotificationLedger
from commit_digest.words import counted


@dataclass(frozen=True)
class Outbox:
    """How messages leave (or, with ``dry_run``, are only shown)."""

    http: HttpSender
    environ: Mapping[str, str]
    mail: Callable[[EmailMessage, SmtpServer], None] = send_mail
    dry_run: bool = False
    show: Callable[[str], None] = print
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    # Looked up at each post, so whatever handles the signals answers (and a test may stand in for it).
    stop_requested: Callable[[], bool] = lambda: stopping.stop_requested()


@dataclass(frozen=True)
class ChannelPlan:
    channel: WebhookChannel | EmailChannel
    composer: Composer
    days: Mapping[date, Day]  # the site's days in the channel's language (only those read)
    site: str = ""  # the published site's address: part of each message's idempotency key


@dataclass
class NotifySummary:
    sent: int = 0
    failed: int = 0
    unknown: int = 0  # attempts whose outcome is unknown: not posted again, reported
    fault: str | None = None  # a step of the ledger could not be recorded: the run stopped there
    stopped: bool = False  # a stop was asked for: nothing more was posted
    lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.unknown == 0 and self.fault is None and not self.stopped


class RecordingError(CommitDigestError):
    """A step of the ledger could not be written to the durable form (read-only, full disk)."""


class MissingSecretError(SendError):
    """An environment variable the channel names is not set."""


def candidate_days(
    channel: WebhookChannel | EmailChannel,
    ledger: NotificationLedger,
    *,
    today: date,
    complete_before: date,
    asked: date | None,
    resend: bool = False,
) -> list[date]:
    """The days to send to ``channel`` now, oldest first: those the ledger has no entry for (with
    ``resend``, ``asked`` whose outcome is unknown too)."""
    if asked is not None:
        wanted = [asked]
    else:
        first = today - timedelta(days=channel.catch_up_days)
        wanted = [first + timedelta(days=offset) for offset in range((complete_before - first).days)]
    chosen = []
    for day in wanted:
        entry = ledger.entry(channel.key, day)
        if entry is None or (resend and not entry.delivered):
            chosen.append(day)
    return chosen


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


Post = Callable[[], None]


def _prepare(channel: WebhookChannel | EmailChannel, message: DayMessage, outbox: Outbox) -> Post | None:
    """What posts one message, all made before its attempt is recorded (a missing variable or a
    message too large is no attempt); None when it was only shown (``dry_run``). Raises
    SendError or TooLargeError."""
    now = outbox.clock()
    heading = f"== {channel.key} ({channel.type}) {message.day}"
    if isinstance(channel, EmailChannel):
        server = _smtp_server(channel, outbox.environ, outbox.dry_run)
        mail = email_of(message, channel, now)
        if outbox.dry_run:
            outbox.show(f"{heading}\n{mail.as_string()}")
            return None
        return lambda: outbox.mail(mail, server)
    service = SERVICES[channel.type]
    payload = service.payload(message)
    if outbox.dry_run:
        outbox.show(f"{heading}\n{json.dumps(payload, ensure_ascii=False, indent=2)}")
        return None
    url = _variable(outbox.environ, channel.url_env, dry_run=False) or ""
    secret = _variable(outbox.environ, channel.secret_env, dry_run=False)
    request = service.request(payload, url, secret, now)

    def post() -> None:
        outbox.http.send(request, service.judge, secrets=[secret or ""])

    return post


def unknown_line(channel: str, entry_day: date, why: str) -> str:
    return (
        f"outcome unknown: {channel} {entry_day}: {why}; it is not posted again on its own: see whether "
        f"{channel} has it, and post it with `commit-digest notify --resend --day {entry_day} --channel {channel}`"
    )


def _never_recorded(attempted_at: datetime | None) -> str:
    when = f" at {attempted_at.isoformat(timespec='seconds')}" if attempted_at is not None else ""
    return f"a post was attempted{when} and its outcome never recorded (the run stopped, or the service never answered)"


def deliver(
    plans: Sequence[ChannelPlan],
    ledger: NotificationLedger,
    outbox: Outbox,
    *,
    today: date,
    complete_before: date,
    asked: date | None = None,
    resend: bool = False,
    record: Callable[[], None] = lambda: None,
) -> NotifySummary:
    """Posts each plan's new days; ``record`` writes the ledger to the durable form (RecordingError)."""
    summary = NotifySummary()
    if not outbox.dry_run and any(True for _ in ledger.deliveries()):
        # A delivery an earlier run could not write to the durable form (a full disk) is written
        # now, before any post: the durable form then never shows it as outcome unknown for long.
        try:
            record()
        except RecordingError as error:
            _fault(summary, error, "nothing was posted")
            return summary
    for plan in plans:
        channel = plan.channel
        unknown_before = summary.unknown
        if not resend:
            for entry in ledger.unknown(channel.key):
                summary.unknown += 1
                summary.lines.append(unknown_line(channel.key, entry.day, _never_recorded(entry.attempted_at)))
        days = candidate_days(channel, ledger, today=today, complete_before=complete_before, asked=asked, resend=resend)
        sent_before = summary.sent
        for day in days:
            site_day = plan.days.get(day)
            message = plan.composer.message(site_day) if site_day is not None else None
            if message is None:
                continue  # no commit it follows that day: nothing to say
            message = dataclasses.replace(message, idempotency_key=idempotency_key(plan.site, day, channel.key))
            try:
                post = _prepare(channel, message, outbox)
            except (SendError, TooLargeError) as error:
                summary.failed += 1
                summary.lines.append(f"failed: {channel.key} ({channel.type}) {day}: {error}; the next run retries")
                break
            if post is None:
                summary.lines.append(f"{channel.key}: {day} shown, not sent (--dry-run)")
                continue
            if outbox.stop_requested():
                summary.stopped = True
                summary.lines.append(
                    f"stopped: asked to stop before posting {day} to {channel.key}: it and what follows wait "
                    "for the next run"
                )
                return summary
            attempt = _record_attempt(summary, ledger, record, channel.key, day, outbox.clock())
            if attempt is None:
                return summary
            try:
                post()
            except OutcomeUnknownError as error:
                # The attempt stays recorded as it is: unknown. Later days wait, as after a failure.
                summary.unknown += 1
                summary.lines.append(unknown_line(channel.key, day, str(error)))
                break
            except RecipientsRefusedError as error:
                # Delivered to the others: sent again, they would have it twice.
                summary.failed += 1
                summary.lines.append(f"failed: {channel.key} ({channel.type}) {day}: {error}; not sent again")
                settle = partial(ledger.settle, attempt, outbox.clock())
                if not _recorded(summary, record, settle, _POSTED_UNRECORDED, channel.key, day):
                    return summary
                continue
            except SendError as error:
                summary.failed += 1
                summary.lines.append(f"failed: {channel.key} ({channel.type}) {day}: {error}; the next run retries")
                withdraw = partial(ledger.withdraw, attempt)
                if not _recorded(summary, record, withdraw, _REFUSED_UNRECORDED, channel.key, day):
                    return summary
                break
            settle = partial(ledger.settle, attempt, outbox.clock())
            if not _recorded(summary, record, settle, _POSTED_UNRECORDED, channel.key, day):
                return summary
            summary.sent += 1
            lines = counted(message.line_count, "commit line", "commit lines")
            summary.lines.append(f"{channel.key}: sent {day} ({lines})")
        if (
            summary.sent == sent_before
            and summary.unknown == unknown_before
            and not outbox.dry_run
            and not any(line.startswith(f"failed: {channel.key} ") for line in summary.lines)
        ):
            summary.lines.append(f"{channel.key}: nothing new to send")
    return summary


_NOT_POSTED = "nothing was posted to {channel} for {day}, nor after it"
_POSTED_UNRECORDED = (
    "{day} was posted to {channel} but its delivery could not be recorded everywhere (where it is not, it "
    "shows as outcome unknown), and nothing after it was posted"
)
_REFUSED_UNRECORDED = (
    "{channel} refused {day} (its attempt may still show as outcome unknown), and nothing after it was posted"
)


def _fault(summary: NotifySummary, error: CommitDigestError, what: str) -> None:
    summary.fault = f"stopped: {what}: {error}"
    summary.lines.append(summary.fault)


def _record_attempt(
    summary: NotifySummary,
    ledger: NotificationLedger,
    record: Callable[[], None],
    channel: str,
    day: date,
    now: datetime,
) -> Delivery | None:
    """Records the attempt in the store and the durable form; None (and the summary's fault) when
    it cannot be, and then the store forgets it again: nothing was posted."""
    try:
        attempt = ledger.attempt(channel, day, now)
    except StoreError as error:
        _fault(summary, error, _NOT_POSTED.format(channel=channel, day=day))
        return None
    try:
        record()
    except RecordingError as error:
        # Should the store keep the attempt, it is an outcome unknown reported: never a post doubled.
        with suppress(StoreError):
            ledger.withdraw(attempt)
        _fault(summary, error, _NOT_POSTED.format(channel=channel, day=day))
        return None
    return attempt


def _recorded(
    summary: NotifySummary,
    record: Callable[[], None],
    step: Callable[[], object],
    unrecorded: str,
    channel: str,
    day: date,
) -> bool:
    """Writes an outcome to the store and the durable form; False (and the summary's fault) when
    it cannot be: the run stops, as it could not record its next attempt either."""
    try:
        step()
        record()
    except (RecordingError, StoreError) as error:
        _fault(summary, error, unrecorded.format(channel=channel, day=day))
        return False
    return True
