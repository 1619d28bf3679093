"""The package's modules import each other in one direction only: no import circles.

Every import counts, at module level or deferred inside a function (a deferred import that
closes a circle is still a circle, only hidden until it runs), except those under
``if TYPE_CHECKING:``, which never run."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

PACKAGE = Path(__file__).resolve().parents[1] / "westwood"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, modules: Set[str]) -> Set[str]:
    """The package modules ``path`` imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    never_run = {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and is_type_checking(node)
        for sub in ast.walk(node)
    }
    found: Set[str] = set()
    for node in ast.walk(tree):
        if id(node) in never_run:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import x` imports the submodule pkg.x if there is one, else a name that
            # pkg itself defines
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in modules:
                    found.add(submodule)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def graph() -> Dict[str, Set[str]]:
    """Each module and the package modules it imports (the compiled ``westwood._core`` is a
    leaf)."""
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths} | {"westwood._core"}
    return {module_name(p): imports_of(p, modules) for p in paths}


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    found: List[List[str]] = []
    state: Dict[str, int] = {}
    stack: List[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_the_graph_sees_the_imports_it_should():
    edges = graph()
    assert "westwood.runs.store" in edges["westwood.runs.executors"]
    assert "westwood.experiments.sweep" in edges["westwood.experiments.testbed"]
    # TYPE_CHECKING-only imports do not count
    assert "westwood.experiments.sweep" not in edges["westwood.report.plots"]


def test_no_import_circles():
    assert cycles(graph()) == []


def test_a_circle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
