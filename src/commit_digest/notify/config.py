"""The ``notify:`` list of the plugin block: one entry per channel a day's digest is sent to.

Apart from ``settings`` so that the settings module stays the site's vocabulary and this one
the channels': which service, which environment variables hold its address and secrets, which
commits it wants (platforms, subsystems, from which importance) and in which language. A
channel never holds a webhook address or a secret itself, only the names of the environment
variables that do: a config file is committed, a secret must not be.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from commit_digest.models import LanguageCode

# A channel's name as the ledger keeps it (or its service's name): letters, digits, . _ -.
ChannelName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
# An environment variable's name: what `url_env: FEISHU_WEBHOOK` gives. A URL or a token written
# here by mistake is refused, never used (and never echoed: the pattern names the rule only).
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
LabelFilter = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]*$")]
MinImportance = Literal["high", "medium", "low"]
WebhookService = Literal["slack", "feishu", "dingtalk", "wecom", "discord", "teams", "webhook"]
# The services whose requests a secret signs; the others' webhook address is their only secret.
SIGNED_SERVICES: frozenset[str] = frozenset({"feishu", "dingtalk", "webhook"})
EMAIL = "email"


class _Channel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str  # each kind of channel narrows it to its services' names
    # What the ledger and the report call the channel (default: its type); two channels of one
    # type need names.
    name: ChannelName | None = None
    # Only commits on one of these platforms (ids of the taxonomy), or in one of these subsystems;
    # both given: commits in both. Empty: every commit, sectioned by platform.
    platforms: tuple[LabelFilter, ...] = ()
    subsystems: tuple[LabelFilter, ...] = ()
    # The least importance listed by platform (high-importance commits always lead the message;
    # "low" also lists the commits not analysed yet).
    min_importance: MinImportance = "medium"
    language: LanguageCode | None = None  # default: the site's
    # How many past days a run looks back for days not sent yet (the first run, or after a gap).
    catch_up_days: int = Field(default=3, ge=1, le=31)

    @property
    def key(self) -> str:
        return self.name or self.type


class WebhookChannel(_Channel):
    type: WebhookService
    url_env: EnvName  # the variable holding the webhook URL (it carries the service's token)
    secret_env: EnvName | None = None  # the signing secret (feishu, dingtalk, webhook)

    @model_validator(mode="after")
    def _signed_only_where_the_service_signs(self) -> WebhookChannel:
        if self.secret_env is not None and self.type not in SIGNED_SERVICES:
            raise ValueError(f"a {self.type} webhook is not signed: drop secret_env (its URL is the secret)")
        return self


class EmailChannel(_Channel):
    type: Literal["email"]
    host_env: EnvName  # the variable holding the SMTP server's host name
    port: int = Field(default=587, ge=1, le=65535)
    user_env: EnvName | None = None  # no login without it
    password_env: EnvName | None = None
    sender: Annotated[str, StringConstraints(min_length=3, max_length=320, pattern=r"^[^\s@]+@[^\s@]+$")]
    to: tuple[Annotated[str, StringConstraints(max_length=320, pattern=r"^[^\s@,;<>]+@[^\s@,;<>]+$")], ...] = Field(
        min_length=1, max_length=100
    )
    security: Literal["starttls", "tls", "none"] = "starttls"

    @model_validator(mode="after")
    def _login_needs_both(self) -> EmailChannel:
        if (self.user_env is None) != (self.password_env is None):
            raise ValueError("give both user_env and password_env for an SMTP login, or neither")
        return self


NotifyChannel = Annotated[WebhookChannel | EmailChannel, Field(discriminator="type")]


def unique_channels(channels: Sequence[WebhookChannel | EmailChannel]) -> Sequence[WebhookChannel | EmailChannel]:
    """The channels, each with a name of its own (the ledger tells channels apart by it)."""
    seen: set[str] = set()
    for channel in channels:
        if channel.key in seen:
            raise ValueError(f"two channels are called {channel.key!r}: give each a name")
        seen.add(channel.key)
    return channels
