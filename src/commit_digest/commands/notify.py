"""`notify`: send each new day's digest to the channels of the plugin block's ``notify:`` list.

The edge of the notify package: it reads the environment (webhook URLs, secrets, SMTP logins,
``SITE_URL``) and mkdocs.yml (``site_url``, ``use_directory_urls``, the site's names), reads the
days it may send from the store as the site shows them, and hands them to ``notify.run``, with
``record``: each step of the ledger (an attempt before its post, the outcome after) is written to
the durable form too before the run goes on, and one that cannot be written stops the run with one
line naming the folder (exit 2). Also called by ``nightly`` as its last step, after a successful
build.
"""

from __future__ import annotations

import argparse
import errno
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from commit_digest.commands.common import (
    DEFAULT_CONFIG,
    add_common_options,
    add_durable_dir_option,
    open_store,
    site_settings_from_args,
)
from commit_digest.errors import CommitDigestError, InputError
from commit_digest.notify.compose import Composer, SiteLinks, day_briefs
from commit_digest.notify.config import EmailChannel, WebhookChannel
from commit_digest.notify.http_sender import HttpSender
from commit_digest.notify.run import ChannelPlan, NotifySummary, Outbox, RecordingError, deliver
from commit_digest.settings import PLUGIN_NAME, DigestSettings, read_mkdocs_yml
from commit_digest.site.languages import language_root, site_name
from commit_digest.site.model.followed import followed_repositories, site_last_fetch, site_records, site_taxonomy
from commit_digest.site.model.index import Day, build_index
from commit_digest.site.rendering.feed_list import site_base
from commit_digest.store.analysis_store import AnalysisStore
from commit_digest.store.durable import save_notifications
from commit_digest.store.leases import Lease, lapsed, this_process
from commit_digest.store.notification_ledger import NotificationLedger

LEASE = "notify"
LEASE_SECONDS = 3600.0


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-01-08") from error


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "notify",
        help="send each new day's digest to the channels of notify: (chat webhooks, e-mail), once each",
        description="Sends each complete day not sent yet (the last catch_up_days) to every channel of the "
        "plugin block's notify: list, at most once: each post is recorded in the store and the durable form "
        "before it leaves and its outcome after. A post whose outcome is unknown (the run stopped in between) "
        "is reported, never posted again on its own: --resend posts it on purpose. Webhook URLs and secrets "
        "come from the environment variables the channels name.",
    )
    add_common_options(parser)
    add_durable_dir_option(parser)
    parser.add_argument("--day", type=_day, default=None, metavar="YYYY-MM-DD", help="send this day only")
    parser.add_argument("--channel", default=None, metavar="NAME", help="this channel only (its name, or its type)")
    parser.add_argument(
        "--resend",
        action="store_true",
        help="post --day to --channel although a post of it may have reached the channel (outcome unknown)",
    )
    parser.add_argument(
        "--mark-delivered",
        action="store_true",
        help="record --day as delivered to --channel without posting it (you saw it arrive: outcome unknown no more)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print each message as it would be sent; send nothing")
    parser.add_argument("--site-url", default=None, metavar="URL", help="the published site (default: site_url)")
    parser.set_defaults(handler=run_notify)


def run_notify(args: argparse.Namespace) -> int:
    settings = site_settings_from_args(args)
    if not settings.notify:
        print(f"notify: no channel: add a notify: list to the {PLUGIN_NAME} plugin block")
        return 0
    if args.resend and (args.day is None or args.channel is None):
        raise InputError("--resend posts one day to one channel: give --day and --channel")
    if args.mark_delivered:
        if args.day is None or args.channel is None or args.resend:
            raise InputError("--mark-delivered settles one post: give --day and --channel, without --resend")
        with open_store(settings) as store:
            print(f"notify: {mark_delivered(store, args.channel, args.day, args.durable_dir.resolve())}")
        return 0
    options = NotifyOptions(
        config_file=args.config_file if args.config_file is not None else DEFAULT_CONFIG,
        site_url=args.site_url,
        day=args.day,
        dry_run=args.dry_run,
        durable_dir=args.durable_dir.resolve(),
        channel=args.channel,
        resend=args.resend,
    )
    with open_store(settings) as store:
        summary = notify_site(store, settings, options, environ=os.environ)
    for line in summary.lines:
        print(f"notify: {line}")
    if summary.fault is not None:
        return 2
    return 0 if summary.ok else 1


@dataclass(frozen=True)
class NotifyOptions:
    config_file: Path
    site_url: str | None = None
    day: date | None = None
    dry_run: bool = False
    durable_dir: Path | None = None  # saved after each step of the ledger when the folder exists
    channel: str | None = None  # this channel only
    resend: bool = False  # post ``day`` to ``channel`` although its outcome is unknown


def resolved_site_url(config: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    """mkdocs.yml's ``site_url``; ``!ENV [NAME, …, default]`` read as MkDocs reads it."""
    value = config.get("site_url")
    if isinstance(value, list) and value:
        *names, default = value
        found = next((environ[str(name)] for name in names if environ.get(str(name))), None)
        return found or (str(default) if default else None)
    return str(value) if value else None


def _site_names(config: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for entry in config.get("plugins") or []:
        if isinstance(entry, Mapping) and isinstance(entry.get(PLUGIN_NAME), Mapping):
            names = entry[PLUGIN_NAME].get("site_name")
            return names if isinstance(names, Mapping) else None
    return None


def _chosen_channels(settings: DigestSettings, options: NotifyOptions) -> list[WebhookChannel | EmailChannel]:
    if options.channel is None:
        return list(settings.notify)
    chosen = [channel for channel in settings.notify if channel.key == options.channel]
    if not chosen:
        names = ", ".join(channel.key for channel in settings.notify)
        raise InputError(f"--channel {options.channel}: no channel of notify: is called so (there are: {names})")
    return chosen


_REMEDIES = {
    errno.ENOSPC: "free space on its disk",
    errno.EDQUOT: "free space on its disk",
    errno.EFBIG: "free space on its disk",
    errno.EROFS: "make it writable",
    errno.EACCES: "make it writable",
    errno.EPERM: "make it writable",
}


def mark_delivered(store: AnalysisStore, channel: str, day: date, durable_dir: Path) -> str:
    """Settles a post whose outcome is unknown as delivered, without posting (someone saw it arrive):
    the line to print. Nothing else is touched; a post not recorded as attempted is an InputError."""
    ledger = NotificationLedger(store)
    entry = ledger.entry(channel, day)
    if entry is None or entry.delivered:
        state = "no post of it is recorded" if entry is None else "it is recorded as delivered already"
        raise InputError(f"--mark-delivered: {channel} {day.isoformat()}: {state}; nothing to mark")
    ledger.settle(entry, datetime.now(UTC))
    if durable_dir.exists() or durable_dir.is_symlink():
        try:
            save_ledger(store, durable_dir)
        except RecordingError as error:
            ledger.withdraw(entry)  # as it was: unknown, in the store and the durable form alike
            ledger.attempt(entry.channel, entry.day, entry.attempted_at or datetime.now(UTC))
            raise InputError(str(error)) from error
    return f"{channel}: {day.isoformat()} recorded as delivered, not posted again"


def save_ledger(store: AnalysisStore, durable_dir: Path) -> None:
    """Writes the ledger's year files to the durable form; RecordingError naming the folder when
    they cannot be written (read-only, full disk, a file where a folder should be)."""
    if not durable_dir.is_dir():
        raise RecordingError(
            f"the durable folder {durable_dir} is not a folder: move what is there away, or give --durable-dir"
        )
    try:
        save_notifications(store, durable_dir)
    except OSError as error:
        cause = error.strerror or type(error).__name__
        where = f": {error.filename}" if error.filename else ""
        raise RecordingError(
            f"cannot write the notification ledger into the durable folder {durable_dir} ({cause}{where}); "
            f"{_REMEDIES.get(error.errno or 0, 'make its notifications/ a folder it can write to')}"
        ) from error
    except CommitDigestError as error:
        raise RecordingError(f"cannot write the notification ledger into {durable_dir}: {error}") from error


def notify_site(
    store: AnalysisStore,
    settings: DigestSettings,
    options: NotifyOptions,
    *,
    environ: Mapping[str, str],
    http: HttpSender | None = None,
    now: datetime | None = None,
) -> NotifySummary:
    """Sends every channel its new days; the summary says what was sent and what failed."""
    config = read_mkdocs_yml(options.config_file) if options.config_file.exists() else {}
    site_url = options.site_url or resolved_site_url(config, environ)
    if not site_url:
        raise InputError("notify links the published site's pages: set site_url in mkdocs.yml or give --site-url")
    moment = now or datetime.now(UTC)
    zone = settings.zone
    today = moment.astimezone(zone).date()
    complete_before = (site_last_fetch(store, settings) or moment).astimezone(zone).date()
    if options.day is not None and options.day >= complete_before and not options.dry_run:
        # Sent now, the day would be recorded as delivered and its later commits never sent.
        raise InputError(
            f"--day {options.day.isoformat()} is not complete yet: commits are fetched up to "
            f"{complete_before.isoformat()} ({settings.timezone}); send it after a later fetch, "
            "or look at it with --dry-run"
        )
    first = options.day or today - timedelta(days=max(channel.catch_up_days for channel in settings.notify))
    last = options.day or complete_before
    taxonomy = site_taxonomy(settings)
    repositories = followed_repositories(settings, taxonomy)
    records = [record for record in site_records(store, settings) if first <= record.commit.day(zone) <= last]
    titles = {item.name: item.title for item in repositories}
    names = _site_names(config)
    days_by_language: dict[str, dict[date, Day]] = {}
    briefs_by_language: dict[str, Any] = {}
    stored_briefs = list(store.briefs())
    plans = []
    channels = _chosen_channels(settings, options)
    for channel in channels:
        language = channel.language or settings.language
        if language not in days_by_language:
            index = build_index(records, repositories=repositories, zone=zone, taxonomy=taxonomy, language=language)
            days_by_language[language] = {day.date: day for day in index.days}
            briefs_by_language[language] = day_briefs(
                stored_briefs, days_by_language[language], language, settings.languages
            )
        root = language_root(language, settings.languages) if language in settings.languages else ""
        links = SiteLinks(
            base=site_base(site_url) + root,
            directory_urls=bool(config.get("use_directory_urls", True)),
            several_repositories=len(repositories) > 1,
            repository_titles=titles,
        )
        # As the site names itself: the plugin block's name for the language, else the top-level one.
        own_name = site_name(names, language)
        if own_name is None and isinstance(config.get("site_name"), str):
            own_name = config["site_name"]
        composer = Composer(channel, language, taxonomy, links, own_name, briefs_by_language[language])
        plans.append(ChannelPlan(channel, composer, days_by_language[language], site=site_base(site_url)))
    ledger = NotificationLedger(store)
    if options.resend and options.day is not None and options.channel is not None:
        entry = ledger.entry(options.channel, options.day)
        if entry is not None and entry.delivered:
            when = entry.sent_at.isoformat(timespec="seconds") if entry.sent_at else "an unrecorded time"
            raise InputError(
                f"--resend: {options.channel} has {options.day.isoformat()} already (delivered at {when}): "
                "nothing to resend"
            )
    durable_dir = options.durable_dir

    def record() -> None:
        # No folder there: the project keeps no durable form, and the store is the ledger.
        if durable_dir is not None and (durable_dir.exists() or durable_dir.is_symlink()):
            save_ledger(store, durable_dir)

    holder = this_process()
    lease = holder.lease(now=moment.timestamp(), seconds=LEASE_SECONDS)

    def gone(held: Lease) -> bool:
        return lapsed(held, now=datetime.now(UTC).timestamp(), host=holder.host)

    if not options.dry_run and not store.acquire_lease(LEASE, lease, lapsed=gone):
        summary = NotifySummary(failed=1)
        summary.lines.append("failed: another notify run is sending from this store; this run sent nothing")
        return summary
    sender = http or HttpSender()
    try:
        clock = (lambda: moment) if now is not None else (lambda: datetime.now(UTC))
        outbox = Outbox(http=sender, environ=environ, dry_run=options.dry_run, clock=clock)
        return deliver(
            plans,
            ledger,
            outbox,
            today=today,
            complete_before=complete_before,
            asked=options.day,
            resend=options.resend,
            record=record,
        )
    finally:
        if http is None:
            sender.close()
        if not options.dry_run:
            store.release_lease(LEASE, holder.holder)
