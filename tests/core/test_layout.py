"""The layout keeps showing the architecture: no import cycles, no module over 400 lines, views
that import the model and the rendering helpers but never each other, a read model that imports
neither views nor rendering nor the build machinery.

Every import counts, those under ``if TYPE_CHECKING:`` and inside functions too: two modules that
name each other are one module in two files.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "commit_digest": ROOT / "src" / "commit_digest",
    "commit_digest_mkdocs": ROOT / "plugins" / "commit_digest_mkdocs",
}
MODULE_LINES = 400
# What may sit at the top of src/commit_digest/: the shared vocabulary, the public API, the CLI, and
# what the CLI takes from its process (stop signals, the environment's variables).
TOP_MODULES = {
    "__init__",
    "models",
    "fields",
    "settings",
    "errors",
    "caps",
    "api",
    "cli",
    "words",
    "counting",
    "stopping",
    "environment",
}
TOP_PACKAGES = {
    "analysis",
    "collect",
    "commands",
    "data",
    "legacy",
    "meaning",
    "notify",
    "plans",
    "search",
    "site",
    "store",
}


def _modules() -> dict[str, Path]:
    found = {}
    for name, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            dotted = ".".join((name, *parts))
            found[dotted.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[str]:
    """The project modules ``module`` imports, wherever the import statement is."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # "from package import module" imports the module; "from module import name" the module.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            if name in MODULES and name != module:
                yield name


GRAPH = {module: set(_imports(module, path)) for module, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_no_module_over_the_limit() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in MODULES.values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert long == {}


def test_the_top_of_the_package_shows_the_pipeline() -> None:
    top = PACKAGES["commit_digest"]
    assert {path.stem for path in top.glob("*.py")} <= TOP_MODULES
    assert {path.name for path in top.iterdir() if path.is_dir() and path.name != "__pycache__"} <= TOP_PACKAGES


@pytest.mark.parametrize("module", sorted(name for name in MODULES if name.startswith("commit_digest.site.views.")))
def test_a_view_imports_no_other_view(module: str) -> None:
    if module == "commit_digest.site.views.registry":
        return  # the one list of views
    views = {name for name in GRAPH[module] if name.startswith("commit_digest.site.views.")}
    assert views <= {"commit_digest.site.views.base"}


@pytest.mark.parametrize(
    ("layer", "above"),
    [
        # The read model knows nothing of how it is shown or written.
        ("commit_digest.site.model", ("site.views", "site.rendering", "site.build")),
        # The rendering helpers serve every view and know none.
        ("commit_digest.site.rendering", ("site.views", "site.build")),
    ],
)
def test_a_layer_imports_nothing_above_it(layer: str, above: tuple[str, ...]) -> None:
    names = tuple(f"commit_digest.{name}" for name in above)
    leaks = {
        module: sorted(name for name in imported if name.startswith(names))
        for module, imported in GRAPH.items()
        if module.startswith(layer)
    }
    assert {module: found for module, found in leaks.items() if found} == {}


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        # The site shows what is stored; it never runs an analysis, not even the offline one's pass.
        ("commit_digest.site", ("analysis",)),
        # What a commit means is read by rules alone: no LLM pass, no page.
        ("commit_digest.meaning", ("analysis", "site")),
        # How to ask the model knows nothing of pages: what a narrative or brief covers is planned
        # from the site's read model in ``plans`` (issue 46: site and analysis named each other).
        ("commit_digest.analysis", ("site", "plans")),
    ],
)
def test_a_package_imports_none_of_the_packages_it_must_not_know(package: str, forbidden: tuple[str, ...]) -> None:
    leaks = {
        module: sorted(name for name in imported if any(_within(name, f"commit_digest.{other}") for other in forbidden))
        for module, imported in GRAPH.items()
        if _within(module, package)
    }
    assert {module: found for module, found in leaks.items() if found} == {}


def _within(module: str, package: str) -> bool:
    """``module`` is ``package`` or one of its modules (``site`` holds ``site.model``, not ``sitemap``)."""
    return module == package or module.startswith(f"{package}.")


def test_the_cycle_finder_finds_a_cycle_of_two_and_of_three() -> None:
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c", "a"}, "f": {"a"}}
    assert sorted(_cycles(graph)) == [["a", "b"], ["c", "d", "e"]]


def test_the_graph_sees_type_checking_and_function_imports() -> None:
    """The checks above are only as good as the graph: it holds a TYPE_CHECKING import and a lazy one."""
    assert "commit_digest.site.model.index" in GRAPH["commit_digest.site.rendering.fragments"]
    assert any(name.startswith("commit_digest_mkdocs") for name in GRAPH["commit_digest.commands.build"])
