"""The module graph of grader/ flows one way (docs/ARCHITECTURE.md):

cli -> entries (batch, serve, integrations, audit, ...) -> the Grader -> the pipeline and its steps ->
execute's runner -> model / config / errors / text.

Every import counts, at module level or inside a function (the lazy ones keep ``--help`` fast, but they are
dependencies all the same), read with the ast module, without importing anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "grader"

#: The modules of execute/ that code outside it may import: the door, and the vocabulary it shares.
EXECUTE_PUBLIC = {"grader.execute", "grader.execute.runner", "grader.execute.protocol", "grader.execute.calls"}
#: Entries: what a command, a batch, the daemon or an integration starts from. They may import each other
#: (the CLI aside), except that serve never imports batch.
ENTRIES = (
    "grader.batch",
    "grader.serve",
    "grader.integrations",
    "grader.audit",
    "grader.build",
    "grader.corpus",
    "grader.release",
    "grader.variants",
    "grader.selfcheck",
)
BOTTOM = {"grader", "grader.model", "grader.config", "grader.errors", "grader.text", "grader.files"}


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports (``from a import b`` counts ``a.b``
    when ``b`` is a module)."""
    files = {_name(p): p for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module)
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
        graph[name] = {m for m in imported if m in files and m != name}
    return graph


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer(module: str) -> int:
    """How high ``module`` stands: imports go to a lower layer, or sideways within the same one."""
    if module == "grader.cli":
        return 5
    if any(_within(module, entry) for entry in ENTRIES):
        return 4
    if module == "grader.grader":
        return 3
    if _within(module, "grader.execute"):
        return 1
    if module in BOTTOM:
        return 0
    return 2  # the pipeline and its steps: read, lessons, suites, testing, score, report


GRAPH = _graph()


def test_the_graph_is_read() -> None:
    """The reader finds the arrows this file is about (if it found none, every check below would pass)."""
    assert "grader.execute.runner" in GRAPH["grader.pipeline"]
    assert "grader.grader" in GRAPH["grader.serve.daemon"]
    assert len(GRAPH) > 50


def test_imports_flow_down() -> None:
    upward = sorted(f"{a} -> {b}" for a, deps in GRAPH.items() for b in deps if layer(b) > layer(a))
    assert not upward, "imports against the layers (see docs/ARCHITECTURE.md):\n" + "\n".join(upward)


def test_nothing_outside_execute_imports_its_internals() -> None:
    reaching = sorted(
        f"{a} -> {b}"
        for a, deps in GRAPH.items()
        if not _within(a, "grader.execute")
        for b in deps
        if _within(b, "grader.execute") and b not in EXECUTE_PUBLIC
    )
    assert not reaching, "import execute/ only through runner, protocol and calls:\n" + "\n".join(reaching)


def test_serve_does_not_import_batch() -> None:
    arrows = sorted(
        f"{a} -> {b}"
        for a, deps in GRAPH.items()
        if _within(a, "grader.serve")
        for b in deps
        if _within(b, "grader.batch")
    )
    assert not arrows, "\n".join(arrows)


def test_only_the_grader_and_execute_start_workers() -> None:
    """Workers start through the runner, held by a Grader (grader.grader) or by the recipe it calls (pipeline)."""
    users = {a for a, deps in GRAPH.items() if "grader.execute.runner" in deps and not _within(a, "grader.execute")}
    allowed = {
        "grader.grader",
        "grader.pipeline",
        "grader.batch.dispatch",
        "grader.batch.run",
        "grader.batch.fingerprint",
        "grader.batch.work",
    }
    assert users <= allowed, users - allowed


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_cycle() -> None:
    assert not cycles(GRAPH), cycles(GRAPH)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_cycles_are_found(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(graph) == expected
