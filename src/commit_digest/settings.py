"""Settings: one frozen object, built once at the edge (CLI flags or the MkDocs plugin config)
and passed in. Nothing below reads the environment or a global config."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from commit_digest.errors import InputError
from commit_digest.fields import RepositoryName
from commit_digest.meaning.taxonomy_file import combine_overrides
from commit_digest.models import LanguageCode
from commit_digest.notify.config import NotifyChannel, unique_channels

PLUGIN_NAME = "commit-digest"
# Options of the plugin block that only shape the website (``enabled`` is MkDocs' generic
# switch for any plugin); the CLI reads the same block and leaves them out.
SITE_ONLY_OPTIONS: tuple[str, ...] = (
    "site_name",
    "site_description",
    "days_on_home",
    "page_size",
    "workers",
    "enabled",
)
Language = LanguageCode
DEFAULT_RELEASE_TAGS = r"^v?\d+(\.\d+)+$"
# GitHub Pages' limit on a published site, in decimal units: 1 GB is 10**9 bytes (the smaller
# reading of "1 GB", so a site under it is under either).
DEFAULT_SITE_SIZE_LIMIT = 1_000_000_000
_SIZE = re.compile(r"(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>[kmgt]i?b|b)?", re.IGNORECASE)
_SIZE_UNITS = {"b": 1} | {
    prefix + suffix: base**power
    for power, prefix in enumerate("kmgt", start=1)
    for suffix, base in (("b", 1000), ("ib", 1024))
}


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelPrice(_Settings):
    """US dollars per million tokens, for ``commit-digest stats`` estimates."""

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)
    cached_prompt: float | None = Field(default=None, ge=0)


class LlmSettings(_Settings):
    model: str = "gpt-4o-mini"
    # Read by the openai SDK from OPENAI_BASE_URL when unset here; never holds a key.
    base_url: str | None = None
    # auto: json_schema first, then the form the server reads, remembered per base URL and model.
    output_mode: Literal["auto", "json_schema", "json_object", "text"] = "auto"
    # The instructions as a system message (true), in the user message (false), or found out (auto:
    # moved when the server refuses a system message or its prompt tokens show it dropped it).
    system_role: Literal["auto", True, False] = "auto"
    # The model's context window in tokens; unset: what the server reports, else no limit.
    context_tokens: int | None = Field(default=None, ge=1024)
    concurrency: int = Field(default=8, ge=1, le=64)
    timeout_seconds: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=10)
    max_retry_wait_seconds: float = Field(default=60.0, ge=0)
    # The first wait before a retry without Retry-After; doubled on each attempt.
    retry_backoff_seconds: float = Field(default=1.0, ge=0)
    diff_token_budget: int = Field(default=12_000, ge=500)
    max_output_tokens: int = Field(default=4_000, ge=16)
    temperature: float | None = Field(default=0.2, ge=0, le=2)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    # Forget what the server was found to read and find it out again (--renegotiate).
    renegotiate: bool = False


class GithubSettings(_Settings):
    branch: str | None = None
    # Also read from GITHUB_API_URL by the CLI; default is the public API.
    api_url: str | None = None
    max_rate_limit_wait_seconds: float = Field(default=900.0, ge=0)
    max_retries: int = Field(default=5, ge=0, le=20)
    patch_cap_bytes: int = Field(default=400_000, ge=0)
    fetch_pull_requests: bool = True
    default_days: int = Field(default=2, ge=1)


class RepositorySettings(_Settings):
    """One repository a site follows (an item of ``repositories:``)."""

    name: RepositoryName
    # Every commit of this repository is on these platforms (a hardware plugin: [ascend]).
    platforms: tuple[str, ...] = ()
    # Additions and overrides of the taxonomy for this repository's commits only, applied after
    # the site-wide ``taxonomy:``.
    taxonomy: dict[str, Any] | None = None
    branch: str | None = None  # default: the site-wide github.branch, else the default branch
    title: str | None = None  # what the site calls it (default: the name after the owner)
    # A regular expression (``re.search``) of the tag names that are releases: final releases by
    # default (v0.11.0, 1.2); widen it to count release candidates (``^v?\d+(\.\d+)+(rc\d+)?$``).
    release_tags: str = DEFAULT_RELEASE_TAGS
    # Changes to the rules that find operator changes in this repository's diffs (its env-table
    # files, the names of its environment variables, its engine-argument classes, dependency
    # files…; see impact/rules.py): a key given replaces that rule's default, which fits vLLM.
    impact: dict[str, Any] | None = None

    @field_validator("impact")
    @classmethod
    def _impact_rules(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            from commit_digest.meaning.impact.rules import impact_rules  # the rules import nothing of ours

            try:
                impact_rules(value)
            except ValidationError as error:
                problems = "; ".join(
                    f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}" for problem in error.errors()
                )
                raise ValueError(problems) from None
        return value

    @field_validator("release_tags")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"{value} is not a regular expression: {error}") from error
        return value

    @property
    def display_name(self) -> str:
        return self.title or self.name.split("/", 1)[1]


class DigestSettings(_Settings):
    # The shorthand for one repository; with ``repositories`` it is their first.
    repository: RepositoryName = "vllm-project/vllm"
    # Every repository the site follows, in the order the site lists them. After validation
    # never empty: ``repository`` alone gives a list of one.
    repositories: tuple[RepositorySettings, ...] = ()
    platforms: tuple[str, ...] = ()  # ``repository``'s, as an item of ``repositories`` gives its own
    cache_dir: Path = Path("cache")
    language: Language = "zh"
    # Every language the site is published in, the first the default (at the site's root);
    # ``language`` is the shorthand for one. After validation never empty, and its first is
    # ``language``.
    languages: tuple[Language, ...] = ()
    timezone: str = "UTC"
    taxonomy: dict[str, Any] | None = None
    taxonomy_file: Path | None = None
    llm: LlmSettings = LlmSettings()
    github: GithubSettings = GithubSettings()
    # The published site's size (bytes) past which a build is not published; it warns at 80%.
    site_size_limit: int = DEFAULT_SITE_SIZE_LIMIT
    # Where each new day's digest is sent (chat webhooks, e-mail): see notify/config.py.
    notify: tuple[NotifyChannel, ...] = ()
    # After SIGTERM or SIGINT, how long requests in flight may take to land (and be stored)
    # before the run ends without them (see stopping.py).
    stop_grace_seconds: float = Field(default=10.0, ge=0, le=3600)
    _one_name_per_channel = field_validator("notify")(unique_channels)

    @field_validator("site_size_limit", mode="before")
    @classmethod
    def _a_size(cls, value: Any) -> int:
        return parse_size(value)

    @model_validator(mode="before")
    @classmethod
    def _one_language_list(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        languages = data.get("languages")
        if not languages:
            return data
        if isinstance(languages, str) or len(set(languages)) != len(languages) or len(languages) > 2:
            raise ValueError("languages must list zh and/or en, each once, the default first")
        language = data.get("language")
        if language is not None and language != languages[0]:
            if language not in languages:
                raise ValueError(f"language {language!r} is not one of languages {list(languages)}")
            # An explicit language (--language en) puts that one first.
            languages = [language, *(code for code in languages if code != language)]
        return {**data, "languages": tuple(languages), "language": languages[0]}

    @model_validator(mode="after")
    def _languages_include_language(self) -> Self:
        if not self.languages:
            object.__setattr__(self, "languages", (self.language,))
        return self

    @model_validator(mode="before")
    @classmethod
    def _one_repository_list(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or not data.get("repositories"):
            return data
        if data.get("platforms"):
            raise ValueError("platforms goes with repository:, not repositories: (give each item its own platforms)")
        repositories = data["repositories"]
        if isinstance(repositories, str) or not isinstance(repositories, list | tuple):
            raise ValueError("repositories must be a list of {name: owner/name, ...}")
        # "- vllm-project/vllm" is the short form of "- name: vllm-project/vllm".
        items = [{"name": item} if isinstance(item, str) else item for item in repositories]
        names = [item.get("name") if isinstance(item, Mapping) else None for item in items]
        if len(set(names)) != len(names):
            raise ValueError("repositories lists a repository twice")
        repository = data.get("repository")
        if repository is not None and repository not in names:
            raise ValueError(f"repository {repository!r} is not one of repositories {names}")
        return {**data, "repositories": items, "repository": repository or names[0]}

    @model_validator(mode="after")
    def _repositories_include_repository(self) -> Self:
        if not self.repositories:
            one = RepositorySettings(name=self.repository, platforms=self.platforms)
            object.__setattr__(self, "repositories", (one,))
        return self

    @property
    def repository_names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.repositories)

    def repository_settings(self, name: str) -> RepositorySettings:
        for item in self.repositories:
            if item.name == name:
                return item
        raise InputError(f"{name} is not a repository of this site (repositories: {', '.join(self.repository_names)})")

    def for_repository(self, name: str) -> DigestSettings:
        """These settings as a one-repository command sees them: ``repository`` is ``name``, its
        branch is the GitHub branch, its taxonomy overrides follow the site-wide ones."""
        item = self.repository_settings(name)
        github = self.github.model_copy(update={"branch": item.branch}) if item.branch else self.github
        return self.model_copy(update={"repository": name, "github": github, "taxonomy": self.taxonomy_for(name)})

    def taxonomy_for(self, name: str) -> dict[str, Any] | None:
        """The taxonomy overrides for one repository's commits: the site's, then its own."""
        return combine_overrides(self.taxonomy, self.repository_settings(name).taxonomy)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"unknown time zone {value!r}: give an IANA name such as 'Asia/Shanghai'") from error
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def relative_to(self, base: Path) -> DigestSettings:
        """Paths in a config file are relative to that file's folder."""
        updates: dict[str, Path] = {}
        if not self.cache_dir.is_absolute():
            updates["cache_dir"] = base / self.cache_dir
        if self.taxonomy_file is not None and not self.taxonomy_file.is_absolute():
            updates["taxonomy_file"] = base / self.taxonomy_file
        return self.model_copy(update=updates)


def parse_size(value: object) -> int:
    """Bytes from a number of bytes or a size with a unit: ``1GB``, ``800 MB``, ``1.5 GiB``
    (kB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024)."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and (match := _SIZE.fullmatch(value.strip())):
        number = float(match["number"]) * _SIZE_UNITS[(match["unit"] or "b").lower()]
    if number is None or not math.isfinite(number) or number < 1:
        raise ValueError(f"{value!r} is not a size: give bytes or a size such as 1GB, 800 MB or 1.5 GiB")
    return round(number)


def settings_from_mapping(options: Mapping[str, Any], *, where: str) -> DigestSettings:
    try:
        return DigestSettings.model_validate(dict(options))
    except ValidationError as error:
        problems = "; ".join(f"{path or '(top)'}: {message}" for path, message in _problems(error))
        raise InputError(f"{where}: invalid commit-digest options: {problems}") from error


def _problems(error: ValidationError) -> list[tuple[str, str]]:
    """(dotted option path, message) of each problem; a validator's own message without pydantic's prefix."""
    found = []
    for issue in error.errors(include_url=False):
        cause = (issue.get("ctx") or {}).get("error")
        message = str(cause) if issue["type"] == "value_error" and cause is not None else issue["msg"]
        found.append((".".join(str(part) for part in issue["loc"]), message))
    return found


class _TolerantLoader(yaml.SafeLoader):
    """Reads mkdocs.yml without running it: tags such as !ENV or !!python/name become plain values."""


def _construct_unknown(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_TolerantLoader.add_multi_constructor("", _construct_unknown)


def read_mkdocs_yml(config_file: Path) -> dict[str, Any]:
    """An mkdocs.yml as plain data, without running MkDocs (``!ENV [NAME, default]`` gives a list)."""
    try:
        data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=_TolerantLoader)
    except OSError as error:
        raise InputError(f"cannot read {config_file}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise InputError(f"{config_file} is not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise InputError(f"{config_file} is not a mapping of MkDocs settings")
    return data


def plugin_options_in(config_file: Path) -> dict[str, Any]:
    """The ``commit-digest`` plugin's settings options in an mkdocs.yml ({} when it has none)."""
    data = read_mkdocs_yml(config_file)
    for entry in data.get("plugins") or []:
        if isinstance(entry, Mapping) and PLUGIN_NAME in entry:
            options = entry[PLUGIN_NAME] or {}
            if not isinstance(options, Mapping):
                raise InputError(f"{config_file}: the {PLUGIN_NAME} plugin's options must be a mapping")
            return {key: value for key, value in options.items() if key not in SITE_ONLY_OPTIONS}
    return {}


def load_settings(
    config_file: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    flags: Mapping[str, str] | None = None,
) -> DigestSettings:
    """Settings from an mkdocs.yml (if it exists) with command-line overrides applied on top.

    ``overrides`` holds options (a mapping for a section such as ``llm``); None means not given.
    ``flags`` names the command-line flag of an option path (``{"llm.concurrency": "--concurrency"}``):
    a bad value is reported with its flag when it came from the command line, and with the file
    and option path when it came from the file.
    """
    options: dict[str, Any] = {}
    base = Path.cwd()
    read = config_file if config_file is not None and config_file.exists() else None
    if read is not None:
        options = plugin_options_in(read)
        base = read.resolve().parent
    given = _option_paths(overrides or {})
    for path, value in given.items():
        _set_option(options, path, value)
    try:
        settings = DigestSettings.model_validate(options)
    except ValidationError as error:
        origins = [_origin(path, given, flags or {}, read) + message for path, message in _problems(error)]
        raise InputError("; ".join(origins)) from error
    return settings.relative_to(base)


def _option_paths(overrides: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The given (not None) values of ``overrides``, by dotted option path."""
    paths: dict[str, Any] = {}
    for key, value in overrides.items():
        if isinstance(value, Mapping):
            paths.update(_option_paths(value, f"{prefix}{key}."))
        elif value is not None:
            paths[f"{prefix}{key}"] = value
    return paths


def _set_option(options: dict[str, Any], path: str, value: Any) -> None:
    *sections, name = path.split(".")
    target = options
    for section in sections:
        current = target.get(section)
        if current is not None and not isinstance(current, Mapping):
            return  # the file's own value is no section: validation reports it where it was written
        target[section] = dict(current or {})
        target = target[section]
    target[name] = value


def _origin(path: str, given: Mapping[str, Any], flags: Mapping[str, str], config_file: Path | None) -> str:
    """Where the value at ``path`` came from, as the start of its problem line."""
    for option in given:
        if path == option or path.startswith(option + "."):
            return f"{flags[option]}: " if option in flags else f"command line: {path}: "
    if config_file is not None:
        return f"{config_file}: plugins.{PLUGIN_NAME}.{path}: "
    return f"{path or '(settings)'}: "
