"""What operator impact looks at, as data: which files hold env tables, engine-argument classes
and dependencies, which paths to pass over, and which path means which platform.

Every field has the default that fits vLLM; a repository's mapping replaces the fields it names
(``impact_rules({"env_name_pattern": "^(VLLM|ASCEND)_"})``). Globs are gitignore-style (a later
``!pattern`` takes a path back out); platform globs ignore case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Annotated, Any

import pathspec
from pydantic import BaseModel, ConfigDict, StringConstraints, field_validator

from commit_digest.fields import LABEL_ID_PATTERN

PlatformId = Annotated[str, StringConstraints(pattern=LABEL_ID_PATTERN, max_length=40)]

# A token at the start of a path component or after _ . - : "tpu" in requirements/tpu.txt and
# model_runner_tpu.py, never in outputs.py ("ou-tpu-ts"); "npu" never in inputs/.
_TOKEN_GLOBS = ("{0}*", "*[_.-]{0}*")


def _token(word: str) -> tuple[str, ...]:
    return tuple(glob.format(word) for glob in _TOKEN_GLOBS)


DEFAULT_PLATFORM_PATHS: dict[str, tuple[str, ...]] = {
    "cuda": _token("cuda"),
    "rocm": _token("rocm"),
    "xpu": _token("xpu"),
    "tpu": _token("tpu"),
    # CPU offloading (kv_offload/cpu.py, cpu_offload) is a GPU feature, not the CPU platform.
    "cpu": (*_token("cpu"), "!*offload*", "!**/*offload*/**"),
    "ascend": ("*ascend*", *_token("npu")),
    "hpu": (*_token("hpu"), "*gaudi*", "*habana*"),
}


def _spec(globs: tuple[str, ...]) -> pathspec.PathSpec:
    # Git's own rules, as the taxonomy's: a later "!glob" takes back the files it matches (a
    # folder's files need "!**/folder/**", as in a .gitignore).
    return pathspec.GitIgnoreSpec.from_lines(globs)


def _check_regex(value: str) -> str:
    try:
        re.compile(value)
    except re.error as error:
        raise ValueError(f"not a regular expression: {error}") from error
    return value


def _check_globs(value: tuple[str, ...]) -> tuple[str, ...]:
    try:
        _spec(value)
    except (ValueError, TypeError) as error:  # pathspec's GitWildMatchPatternError is a ValueError
        raise ValueError(f"not a gitignore-style glob: {error}") from error
    return value


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClassRule(_Frozen):
    """Dataclasses whose fields are engine arguments: ``classes`` (a regex searched in the class
    name) in the files ``paths`` match."""

    paths: tuple[str, ...]
    classes: str

    @field_validator("classes")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return _check_regex(value)

    @field_validator("paths")
    @classmethod
    def _globs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_globs(value)


@dataclass(frozen=True, slots=True)
class FileRoles:
    """What the rules make of one changed path."""

    env_table: bool = False
    dependency: bool = False
    python: bool = False  # a .py file not ignored: env reads, flags, deprecations
    classes: tuple[re.Pattern[str], ...] = ()  # engine-argument class names looked for here
    platforms: tuple[str, ...] = ()

    @property
    def looked_at(self) -> bool:
        return self.env_table or self.dependency or self.python or bool(self.classes)


class ImpactRules(_Frozen):
    # Files whose ``"NAME": lambda: os.getenv("NAME", default)`` table and ``if TYPE_CHECKING:``
    # declarations define the environment variables (every UPPER_CASE key counts there).
    env_tables: tuple[str, ...] = ("**/envs.py",)
    # Names of environment variables read elsewhere (os.getenv, os.environ.get, os.environ[...]).
    env_name_pattern: str = "^VLLM_"
    # Passed over for env reads, flags, engine arguments and deprecations.
    ignore_paths: tuple[str, ...] = (
        "tests/**",
        "benchmarks/**",
        "examples/**",
        "docs/**",
        ".buildkite/**",
        ".github/**",
    )
    engine_arg_classes: tuple[ClassRule, ...] = (
        ClassRule(paths=("**/engine/arg_utils.py",), classes=r"^(Async)?EngineArgs$"),
        ClassRule(paths=("vllm/config/**/*.py", "vllm/config.py"), classes=r"^[A-Z]\w*Config$"),
    )
    # Requirement lists, pyproject/setup.py and Dockerfiles; test, lint, docs and dev
    # requirements do not reach an operator.
    dependency_files: tuple[str, ...] = (
        "/requirements*.txt",
        "requirements/**/*.txt",
        "/pyproject.toml",
        "/setup.py",
        "**/Dockerfile*",
        "docker/**",
        "!*test*.txt",
        "!*lint*.txt",
        "!*docs*.txt",
        "!*dev*.txt",
    )
    # Searched, ignoring case, in a warning call or decorator added by the commit.
    deprecation_pattern: str = r"DeprecationWarning|FutureWarning|deprecat"
    platform_paths: dict[PlatformId, tuple[str, ...]] = DEFAULT_PLATFORM_PATHS
    enabled: bool = True

    model_config = ConfigDict(extra="forbid", frozen=True, ignored_types=(cached_property,))

    @field_validator("env_name_pattern", "deprecation_pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        return _check_regex(value)

    @field_validator("env_tables", "ignore_paths", "dependency_files")
    @classmethod
    def _globs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _check_globs(value)

    @field_validator("platform_paths")
    @classmethod
    def _platform_globs(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for globs in value.values():
            _check_globs(tuple(glob.lower() for glob in globs))
        return value

    @cached_property
    def env_name(self) -> re.Pattern[str]:
        return re.compile(self.env_name_pattern)

    @cached_property
    def deprecation(self) -> re.Pattern[str]:
        return re.compile(self.deprecation_pattern, re.IGNORECASE)

    @cached_property
    def platform_order(self) -> dict[str, int]:
        """Each platform's place in ``platform_paths``: the order a change lists its platforms in."""
        return {platform: index for index, platform in enumerate(self.platform_paths)}

    @cached_property
    def _deprecation_words(self) -> tuple[str, ...] | None:
        """The pattern's alternatives when each is a plain word (as by default): a substring test
        of the lowercased text finds them some twenty times faster than the case-blind regex."""
        words = self.deprecation_pattern.split("|")
        if all(re.fullmatch(r"[A-Za-z0-9_]+", word) for word in words):
            return tuple(word.lower() for word in words)
        return None

    def mentions_deprecation(self, text: str) -> bool:
        words = self._deprecation_words
        if words is None:
            return self.deprecation.search(text) is not None
        lowered = text.lower()
        return any(word in lowered for word in words)

    @cached_property
    def _specs(self) -> dict[str, pathspec.PathSpec]:
        specs = {
            "env": _spec(self.env_tables),
            "ignore": _spec(self.ignore_paths),
            "dependency": _spec(self.dependency_files),
        }
        for platform, globs in self.platform_paths.items():
            specs["platform:" + platform] = _spec(tuple(glob.lower() for glob in globs))
        return specs

    @cached_property
    def _class_rules(self) -> tuple[tuple[pathspec.PathSpec, re.Pattern[str]], ...]:
        return tuple((_spec(rule.paths), re.compile(rule.classes)) for rule in self.engine_arg_classes)

    @cached_property
    def _roles(self) -> dict[str, FileRoles]:
        return {}

    def roles(self, path: str) -> FileRoles:
        """What the rules look for in ``path``; remembered, as the same paths recur in commit
        after commit and glob matching is the slow part."""
        found = self._roles.get(path)
        if found is None:
            found = self._classify(path)
            if len(self._roles) < 200_000:  # bounded, whatever the archive
                self._roles[path] = found
        return found

    def _classify(self, path: str) -> FileRoles:
        specs = self._specs
        ignored = specs["ignore"].match_file(path)
        lowered = path.lower()
        platforms = tuple(
            platform for platform in self.platform_paths if specs["platform:" + platform].match_file(lowered)
        )
        classes = () if ignored else tuple(regex for spec, regex in self._class_rules if spec.match_file(path))
        return FileRoles(
            env_table=specs["env"].match_file(path),
            dependency=specs["dependency"].match_file(path),
            python=path.endswith(".py") and not ignored,
            classes=classes,
            platforms=platforms,
        )


def impact_rules(overrides: Mapping[str, Any] | None = None) -> ImpactRules:
    """The default rules with a repository's ``overrides`` (each key given replaces that field).
    Raises pydantic's ValidationError naming a bad field; the caller words it for the reader."""
    if not overrides:
        return _default_rules()
    return ImpactRules.model_validate(dict(overrides))


@cache
def _default_rules() -> ImpactRules:
    return ImpactRules()
