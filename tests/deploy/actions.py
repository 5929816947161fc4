"""A small runner of one GitHub Actions job, with Actions' semantics where a workflow meets them.

What it does as GitHub does: each step's ``if:`` (``success()`` implied, ``always()``,
``failure()``, ``!``, ``&&``, ``||``, ``==`` and ``!=`` comparing strings case-insensitively);
``${{ }}`` in ``env:`` and ``with:`` (an unset secret or variable is an empty string, never
absent); ``run:`` as ``bash --noprofile --norc -eo pipefail`` in the workspace with the
workflow's, the job's and the step's environment and the runner's ``GITHUB_*`` variables;
``$GITHUB_OUTPUT`` read back into ``steps.<id>.outputs``; a failed step skipping the rest but
those that ask for ``always()``.

What it does instead of GitHub: the ``uses:`` steps are the test's own functions (a checkout
from a local bare repository, a venv for setup-python, a cache kept between jobs in a folder).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


@dataclass
class StepResult:
    name: str
    outcome: str  # success, failure or skipped
    seconds: float = 0.0
    output: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class Job:
    """One run of a job: what the expressions see, and what each step did."""

    workspace: Path
    secrets: Mapping[str, str]
    variables: Mapping[str, str]
    github: Mapping[str, str]
    environment: dict[str, str]  # the runner's own variables (PATH, HOME, GITHUB_*)
    results: list[StepResult] = field(default_factory=list)
    steps: dict[str, StepResult] = field(default_factory=dict)
    post_steps: list[Callable[[Job], None]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(result.outcome == "failure" for result in self.results)


# A `uses:` step: the action's inputs (`with:`, evaluated) and the job; returns its output text.
Action = Callable[[Mapping[str, str], Job], str]


def load_workflow(path: Path) -> dict[str, Any]:
    # PyYAML reads `on:` as True; nothing here needs the triggers.
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_job(workflow: Mapping[str, Any], name: str, job: Job, actions: Mapping[str, Action]) -> Job:
    definition = workflow["jobs"][name]
    inherited = {**_evaluated_env(workflow.get("env") or {}, job), **_evaluated_env(definition.get("env") or {}, job)}
    for index, step in enumerate(definition["steps"]):
        title = step.get("name") or step.get("uses") or f"step {index}"
        condition = str(step.get("if", "success()"))
        if not _truthy(evaluate(_with_status(condition), job)):
            _record(job, step, StepResult(title, "skipped"))
            continue
        started = time.perf_counter()
        env = {**job.environment, **inherited, **_evaluated_env(step.get("env") or {}, job)}
        if "run" in step:
            result = _run_script(str(step["run"]), env, job, title)
        else:
            action = str(step["uses"]).split("@", 1)[0]
            inputs = {key: interpolate(str(value), job) for key, value in (step.get("with") or {}).items()}
            try:
                result = StepResult(title, "success", output=actions[action](inputs, job))
            except StepFailed as error:
                result = StepResult(title, "failure", output=str(error))
        result.seconds = time.perf_counter() - started
        _record(job, step, result)
    for post in reversed(job.post_steps):  # post steps run last, in reverse order, as Actions runs them
        post(job)
    return job


class StepFailed(Exception):
    """A `uses:` step that failed, with what it printed."""


def _record(job: Job, step: Mapping[str, Any], result: StepResult) -> None:
    job.results.append(result)
    if "id" in step:
        job.steps[str(step["id"])] = result


def _evaluated_env(env: Mapping[str, Any], job: Job) -> dict[str, str]:
    return {str(key): interpolate(str(value), job) for key, value in env.items()}


def _run_script(script: str, env: dict[str, str], job: Job, title: str) -> StepResult:
    with tempfile.TemporaryDirectory(prefix="step-") as folder:
        files = {name: Path(folder) / name.lower() for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
        for path in files.values():
            path.touch()
        script_file = Path(folder) / "step.sh"
        script_file.write_text(script, encoding="utf-8")
        completed = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
            cwd=job.workspace,
            env={**env, **{name: str(path) for name, path in files.items()}},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        outputs = _key_values(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
        job.environment.update(_key_values(files["GITHUB_ENV"].read_text(encoding="utf-8")))
    outcome = "success" if completed.returncode == 0 else "failure"
    return StepResult(title, outcome, output=completed.stdout + completed.stderr, outputs=outputs)


def _key_values(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as the runner reads $GITHUB_OUTPUT."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            values[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values


# -- expressions -------------------------------------------------------------------------------

_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||[!()])"
    r"|(?P<name>[A-Za-z_][\w.-]*(?:\(\))?))"
)
_STATUS_FUNCTIONS = ("success()", "always()", "failure()", "cancelled()")


def interpolate(text: str, job: Job) -> str:
    return _EXPRESSION.sub(lambda match: _text(evaluate(match.group(1), job)), text)


def _with_status(condition: str) -> str:
    """An `if:` without a status function is `success() && (…)`, as Actions reads it."""
    condition = condition.strip()
    if condition.startswith("${{") and condition.endswith("}}"):
        condition = condition[3:-2]
    if any(function in condition for function in _STATUS_FUNCTIONS):
        return condition
    return f"success() && ({condition})"


def evaluate(expression: str, job: Job) -> Any:
    tokens = _tokens(expression)
    value, rest = _or(tokens, job)
    if rest:
        raise ValueError(f"cannot read the expression {expression!r} at {rest[0]!r}")
    return value


def _tokens(expression: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    expression = expression.strip()
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        if match is None or match.end() == position:
            raise ValueError(f"cannot read the expression {expression!r} at {expression[position:]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _or(tokens: list[tuple[str, str]], job: Job) -> tuple[Any, list[tuple[str, str]]]:
    return _joined(tokens, job, "||", _and, lambda left, right: left if _truthy(left) else right)


def _and(tokens: list[tuple[str, str]], job: Job) -> tuple[Any, list[tuple[str, str]]]:
    return _joined(tokens, job, "&&", _not, lambda left, right: right if _truthy(left) else left)


def _joined(
    tokens: list[tuple[str, str]],
    job: Job,
    operator: str,
    operand: Callable[[list[tuple[str, str]], Job], tuple[Any, list[tuple[str, str]]]],
    combine: Callable[[Any, Any], Any],
) -> tuple[Any, list[tuple[str, str]]]:
    """Operands joined by ``operator``, left to right; each step's value is ``combine``'s, as
    Actions gives ``a || b`` and ``a && b`` the value of an operand, not a boolean."""
    value, tokens = operand(tokens, job)
    while tokens and tokens[0] == ("op", operator):
        right, tokens = operand(tokens[1:], job)
        value = combine(value, right)
    return value, tokens


def _not(tokens: list[tuple[str, str]], job: Job) -> tuple[Any, list[tuple[str, str]]]:
    if tokens and tokens[0] == ("op", "!"):
        value, rest = _not(tokens[1:], job)
        return not _truthy(value), rest
    return _comparison(tokens, job)


def _comparison(tokens: list[tuple[str, str]], job: Job) -> tuple[Any, list[tuple[str, str]]]:
    left, tokens = _primary(tokens, job)
    if tokens and tokens[0] in (("op", "=="), ("op", "!=")):
        operator = tokens[0][1]
        right, tokens = _primary(tokens[1:], job)
        same = _comparable(left) == _comparable(right)
        return (same if operator == "==" else not same), tokens
    return left, tokens


def _primary(tokens: list[tuple[str, str]], job: Job) -> tuple[Any, list[tuple[str, str]]]:
    kind, text = tokens[0]
    rest = tokens[1:]
    if (kind, text) == ("op", "("):
        value, rest = _or(rest, job)
        if not rest or rest[0] != ("op", ")"):
            raise ValueError("a ( without its )")
        return value, rest[1:]
    if kind == "string":
        return text[1:-1].replace("''", "'"), rest
    if kind == "number":
        return float(text), rest
    if kind == "name":
        return _name(text, job), rest
    raise ValueError(f"unexpected {text!r}")


def _name(text: str, job: Job) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if text == "success()":
        return not job.failed
    if text == "failure()":
        return job.failed
    if text == "always()":
        return True
    if text == "cancelled()":
        return False
    context, _, path = text.partition(".")
    if context == "secrets":
        return job.secrets.get(path, "")  # an unset secret is an empty string
    if context == "vars":
        return job.variables.get(path, "")
    if context == "github":
        return job.github.get(path, "")
    if context == "env":
        return job.environment.get(path, "")
    if context == "runner":
        return {"os": "Linux", "temp": job.environment.get("RUNNER_TEMP", "")}.get(path, "")
    if context == "steps":
        step_id, _, rest = path.partition(".")
        result = job.steps.get(step_id)
        if result is None:
            return ""
        if rest == "outcome" or rest == "conclusion":
            return result.outcome
        if rest.startswith("outputs."):
            return result.outputs.get(rest.removeprefix("outputs."), "")
    raise ValueError(f"this runner does not know {text!r}")


def _comparable(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _truthy(value: Any) -> bool:
    return value not in (None, False, "", 0, 0.0)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def runner_environment(
    *, workspace: Path, home: Path, path: str, repository: str, api_url: str, run_id: int
) -> dict[str, str]:
    """The variables a GitHub-hosted runner sets for every step (those the workflow's scripts read)."""
    owner = repository.split("/", 1)[0]
    temp = home / "runner-temp"
    temp.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": path,
        "HOME": str(home),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": repository,
        "GITHUB_REPOSITORY_OWNER": owner,
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_EVENT_NAME": "schedule",
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_API_URL": api_url,
        "RUNNER_OS": "Linux",
        "RUNNER_TEMP": str(temp),
    }
