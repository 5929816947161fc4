"""Every library the installed packages import is a declared runtime dependency, with an upper bound.

A library that only arrives with the dev extra, or through another dependency, works under
``make test`` and breaks ``pip install .`` (issue 44: httpx came with the dev extra and with
openai < 3; requests comes with PyGithub). Read from the sources with ``ast``, no install needed.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib

from packaging.requirements import Requirement

from tests.install.clean_checkout import PROJECT

OUR_PACKAGES = {"commit_digest": PROJECT / "src" / "commit_digest"}
OUR_PACKAGES["commit_digest_mkdocs"] = PROJECT / "plugins" / "commit_digest_mkdocs"

# Runtime dependencies without an upper bound, each with the reason (pyproject.toml says it too).
UNBOUNDED = {
    # Its major is the year of the release (23, 24, ... 26), not a break in the API used here.
    "packaging",
}


def normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_requirements() -> list[Requirement]:
    with (PROJECT / "pyproject.toml").open("rb") as file:
        return [Requirement(line) for line in tomllib.load(file)["project"]["dependencies"]]


def third_party_imports() -> dict[str, list[str]]:
    """Top-level module name -> the ``file:line`` of each absolute import of it (in functions too)."""
    found: dict[str, list[str]] = {}
    for root in OUR_PACKAGES.values():
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.partition(".")[0]
                    if top in sys.stdlib_module_names or top in OUR_PACKAGES or top == "__future__":
                        continue
                    found.setdefault(top, []).append(f"{path.relative_to(PROJECT)}:{node.lineno} imports {module}")
    return found


def test_the_walk_sees_the_imports_it_must() -> None:
    """The walk finds imports at module level and inside functions (a guard on the test itself)."""
    found = third_party_imports()
    assert {"mkdocs", "pydantic", "httpx", "requests", "openai"} <= found.keys()


def test_every_imported_library_is_a_declared_dependency() -> None:
    declared = {normalized(requirement.name) for requirement in runtime_requirements()}
    distributions = importlib.metadata.packages_distributions()
    undeclared = []
    for module, places in sorted(third_party_imports().items()):
        names = distributions.get(module)
        if not names:
            undeclared += [f"{place} (no installed distribution provides {module!r})" for place in places]
        elif not declared & {normalized(name) for name in names}:
            undeclared += [f"{place} (from {' or '.join(names)}, not in [project.dependencies])" for place in places]
    assert not undeclared, "imported at run time but not declared:\n" + "\n".join(undeclared)


def test_every_runtime_dependency_has_an_upper_bound() -> None:
    unbounded = [
        str(requirement)
        for requirement in runtime_requirements()
        if normalized(requirement.name) not in UNBOUNDED
        and not any(spec.operator in ("<", "<=", "==", "~=", "===") for spec in requirement.specifier)
    ]
    assert not unbounded, f"no upper bound (add one, or to UNBOUNDED with the reason): {unbounded}"


def test_the_upper_bounds_admit_what_is_installed() -> None:
    """The bounds admit the versions the suite runs against (the ones in .venv now)."""
    refused = [
        f"{requirement} refuses the installed {version}"
        for requirement in runtime_requirements()
        if not requirement.specifier.contains(version := importlib.metadata.version(requirement.name), prereleases=True)
    ]
    assert not refused, refused
