"""The GitHub Actions workflows: audited by zizmor, shaped as the publishing rules require,
and the data-branch script exercised against a real (local) git remote."""

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"


def load(name: str) -> dict[str, Any]:
    # PyYAML reads the `on:` key as True.
    return yaml.safe_load((WORKFLOWS / name).read_text())


def zizmor() -> str:
    found = shutil.which("zizmor") or str(Path(sys.executable).parent / "zizmor")
    assert Path(found).exists(), "zizmor is missing: `make test` installs it with the dev extra"
    return found


def test_zizmor_reports_nothing() -> None:
    result = subprocess.run([zizmor(), "--offline", str(WORKFLOWS)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout


def test_nightly_is_scheduled_serialised_and_least_privileged() -> None:
    nightly = load("nightly.yml")
    triggers = nightly[True]
    assert triggers["schedule"][0]["cron"].split()[0] not in {"0", "*"}  # an off-peak minute, not :00
    assert "workflow_dispatch" in triggers
    assert nightly["permissions"] == {"contents": "read"}
    assert nightly["concurrency"]["cancel-in-progress"] is False
    jobs = nightly["jobs"]
    assert jobs["update"]["permissions"] == {"contents": "write"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert all("timeout-minutes" in job for job in jobs.values())
    uses = [step["uses"] for job in jobs.values() for step in job.get("steps", []) if "uses" in step]
    assert any(use.startswith("actions/upload-pages-artifact@") for use in uses)
    assert any(use.startswith("actions/deploy-pages@") for use in uses)
    setup = next(step for step in jobs["update"]["steps"] if step.get("uses", "").startswith("actions/setup-python@"))
    assert setup["with"]["cache"] == "pip"


@pytest.mark.parametrize("name", ["nightly.yml", "ci.yml"])
def test_actions_are_pinned_and_secrets_never_reach_a_script(name: str) -> None:
    workflow = load(name)
    for job in workflow["jobs"].values():
        for step in job.get("steps", []):
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]
            script = step.get("run", "")
            assert "${{" not in script, f"expression interpolated into a script: {script!r}"
            assert "echo $OPENAI_API_KEY" not in script


def test_ci_runs_the_readme_test_command() -> None:
    steps = load("ci.yml")["jobs"]["test"]["steps"]
    assert any(step.get("run") == "make test" for step in steps)


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_the_data_branch_round_trips_through_a_remote(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git("init", "--quiet", "--bare", str(remote), cwd=tmp_path)
    work = tmp_path / "work"
    git("init", "--quiet", "-b", "main", str(work), cwd=tmp_path)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "init", cwd=work)
    git("remote", "add", "origin", str(remote), cwd=work)
    git("push", "--quiet", "origin", "main", cwd=work)
    script = str(ROOT / "scripts" / "data-branch.sh")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATA_BRANCH": "digest-data"}

    subprocess.run(["bash", script, "checkout", "data"], cwd=work, check=True, env=env, capture_output=True)
    (work / "data" / "manifest.json").write_text("{}\n")
    subprocess.run(["bash", script, "push", "data"], cwd=work, check=True, env=env, capture_output=True)

    again = tmp_path / "again"
    git("clone", "--quiet", str(remote), str(again), cwd=tmp_path)
    subprocess.run(["bash", script, "checkout", "data"], cwd=again, check=True, env=env, capture_output=True)
    assert (again / "data" / "manifest.json").read_text() == "{}\n"
    # Nothing changed: nothing is committed.
    result = subprocess.run(["bash", script, "push", "data"], cwd=again, env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "unchanged" in result.stderr
