"""A small vLLM-like history made with real git, whose commits mean something to operators: an
environment variable added and a default changed, a flag added, a ROCm dependency bumped, a
commit and its revert, a numbered series of three on three days, a fix naming an earlier PR,
a release tag on main and a release branch forked after some commits, tagged later."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests.git import run_git

REPOSITORY = "vllm-project/vllm"

ENVS = """import os

environment_variables = {{
    "VLLM_OLD_SWITCH": lambda: os.getenv("VLLM_OLD_SWITCH", "{old_default}"),
{extra}}}
"""
ARGS = """from dataclasses import dataclass


@dataclass
class EngineArgs:
    model: str = "facebook/opt-125m"
    max_model_len: int | None = None
{extra}

def add_cli_args(parser):
    parser.add_argument(
        "--model",
        type=str,
        default=EngineArgs.model,
    )
{flags}    return parser
"""
FLAG = '    parser.add_argument(\n        "--max-batch",\n        type=int,\n        default=256,\n    )\n'
SCHEDULER = "def schedule(requests):\n    return sorted(requests)\n"


@dataclass
class History:
    folder: Path
    shas: dict[str, str] = field(default_factory=dict)  # name → full sha

    def commit(self, name: str, title: str, when: str, files: dict[str, str], body: str = "") -> str:
        for path, text in files.items():
            target = self.folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        run_git(self.folder, "add", "-A")
        message = title + ("\n\n" + body if body else "")
        run_git(self.folder, "commit", "-q", "-m", message, env=_dated(when))
        self.shas[name] = run_git(self.folder, "rev-parse", "HEAD")
        return self.shas[name]


def _dated(when: str) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": "Ada <script>alert(1)</script>",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }


def make_history(folder: Path) -> History:
    folder.mkdir(parents=True)
    run_git(folder, "init", "-q", "-b", "main")
    history = History(folder)
    history.commit(
        "layout",
        "[Core] Initial layout (#1)",
        "2026-03-02T09:00:00+00:00",
        {
            "vllm/envs.py": ENVS.format(old_default="0", extra=""),
            "vllm/engine/arg_utils.py": ARGS.format(extra="", flags=""),
            "vllm/core/scheduler.py": SCHEDULER,
            "requirements/rocm.txt": "torch==2.5.1\n",
            "requirements/common.txt": "numpy\n",
        },
    )
    run_git(folder, "tag", "v0.1.0", env=_dated("2026-03-02T09:30:00+00:00"))
    history.commit(
        "env",
        "[Feature] Add VLLM_FOO to switch the new scheduler (#2)",
        "2026-03-02T12:00:00+00:00",
        {
            "vllm/envs.py": ENVS.format(
                old_default="1",
                extra='    "VLLM_FOO": lambda: bool(int(os.getenv("VLLM_FOO", "0"))),\n',
            )
        },
    )
    history.commit(
        "rocm",
        "[ROCm] Bump torch to 2.6.0 (#3)",
        "2026-03-03T10:00:00+00:00",
        {"requirements/rocm.txt": "torch==2.6.0\n"},
    )
    history.commit(
        "flag",
        "[Frontend] Add --max-batch flag (#4)",
        "2026-03-03T15:00:00+00:00",
        {
            "vllm/engine/arg_utils.py": ARGS.format(
                extra="    max_batch: int = 256\n",
                flags=FLAG,
            )
        },
    )
    history.commit(
        "broken",
        "[Bugfix] Reorder the scheduler queue (#5)",
        "2026-03-04T10:00:00+00:00",
        {"vllm/core/scheduler.py": "def schedule(requests):\n    return list(reversed(requests))\n"},
    )
    run_git(folder, "revert", "--no-edit", "HEAD", env=_dated("2026-03-05T08:00:00+00:00"))
    history.shas["revert"] = run_git(folder, "rev-parse", "HEAD")
    for part, day in ((1, "05"), (2, "06"), (3, "07")):
        history.commit(
            f"series{part}",
            f"[Kernel] Fused MoE rewrite [{part}/3] (#{6 + part})",
            f"2026-03-{day}T11:00:00+00:00",
            {f"vllm/kernels/moe_{part}.py": f"PART = {part}\n"},
        )
        if part == 2:
            # The release branch forks here: it carries everything up to part 2.
            run_git(folder, "branch", "releases/v0.2")
    history.commit(
        "fix",
        "[Bugfix] Fix the default of the flag from #4 (#10)",
        "2026-03-07T16:00:00+00:00",
        {"vllm/core/scheduler.py": "def schedule(requests):\n    return sorted(requests, key=len)\n"},
        body="Fixes #4",
    )
    run_git(folder, "checkout", "-q", "releases/v0.2")
    history.commit("bump", "Bump version to 0.2.0", "2026-03-08T09:00:00+00:00", {"VERSION": "0.2.0\n"})
    run_git(folder, "tag", "v0.2.0", env=_dated("2026-03-08T09:00:00+00:00"))
    run_git(folder, "tag", "v0.3.0rc1", env=_dated("2026-03-08T09:05:00+00:00"))  # not a release
    run_git(folder, "checkout", "-q", "main")
    return history
