"""The module graph of grader/ flows one way, as docs/ARCHITECTURE.md ("Which module may import which") says.

The layers are read from that section's list, and each module of the package is placed by its folder (a folder
line stands for its modules that no other line names), so the doc and this check cannot drift apart, and a new
module or folder the list does not place fails here. Every import counts, at module level or inside a function
(the lazy ones keep ``--help`` fast, but they are dependencies all the same), read with the ast module, without
importing anything; bench/ is read too, for the rule that holds outside execute/.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "grader"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"

#: The modules of execute/ that code outside it may import: its two doors, and the vocabulary it shares.
EXECUTE_PUBLIC = {
    "grader.execute",
    "grader.execute.runner",
    "grader.execute.upkeep",
    "grader.execute.protocol",
    "grader.execute.calls",
}
#: The modules that start workers: the Grader and the recipe it calls.
STARTS_WORKERS = {"grader.grader", "grader.pipeline"}


def _name(path: Path, root: Path = PACKAGE.parent) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """What one file imports (``from a import b`` counts ``a`` and ``a.b``)."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module)
            imported.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    return imported


def _graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports (``from a import b`` counts ``a.b``
    when ``b`` is a module)."""
    files = {_name(p): p for p in package.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in files and m != name} for name, path in files.items()}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def read_layers(text: str) -> list[list[str]]:
    """The ```` ```layers ```` list of the architecture doc: one line per layer, top first, as module prefixes
    (``batch/`` is ``grader.batch``, ``execute/runner.py`` is ``grader.execute.runner``)."""
    found = re.search(r"```layers\n(.*?)```", text, re.DOTALL)
    assert found, "docs/ARCHITECTURE.md has no ```layers list"
    layers = []
    for line in found[1].splitlines():
        names = []
        for entry in line.split():
            parts = entry.removesuffix("/").removesuffix(".py").split("/")
            names.append(".".join(["grader", *(p for p in parts if p != "__init__")]))
        layers.append(names)
    return layers


LAYERS = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
GRAPH = _graph()


def layer(module: str, layers: list[list[str]] = LAYERS) -> int:
    """How high ``module`` stands (0 the bottom), by the most specific line entry that holds it."""
    best: tuple[int, int] | None = None  # (length of the entry that matched, its height)
    for top_down, names in enumerate(layers):
        for prefix in names:
            exact = prefix == "grader"
            if (module == prefix if exact else _within(module, prefix)) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), len(layers) - 1 - top_down)
    if best is None:
        raise LookupError(f"{module} is on no line of the layers list in docs/ARCHITECTURE.md: place it there")
    return best[1]


def test_the_graph_and_the_layers_are_read() -> None:
    """The reader finds the arrows and the layers this file is about (finding none, every check would pass)."""
    assert "grader.execute.runner" in GRAPH["grader.pipeline"]
    assert "grader.grader" in GRAPH["grader.serve.daemon"]
    assert len(GRAPH) > 50 and len(LAYERS) >= 8
    assert layer("grader.cli") > layer("grader.batch.run") > layer("grader.grader") > layer("grader.pipeline")
    assert layer("grader.pipeline") > layer("grader.score") > layer("grader.execute.runner")
    assert layer("grader.execute.runner") > layer("grader.execute.worker") > layer("grader.model")


def test_every_module_is_placed_by_the_doc() -> None:
    """A new module or folder of grader/ is placed in the architecture's list before it is imported by anything."""
    unplaced = []
    for module in GRAPH:
        try:
            layer(module)
        except LookupError as err:
            unplaced.append(str(err))
    assert not unplaced, "\n".join(unplaced)


def test_an_unplaced_module_is_refused() -> None:
    with pytest.raises(LookupError, match="grader.newstep"):
        layer("grader.newstep", [["grader.cli"], ["grader.execute"]])
    assert layer("grader.execute.runner", [["grader.execute.runner"], ["grader.execute"]]) == 1  # the closer line


def test_imports_flow_down() -> None:
    upward = sorted(f"{a} -> {b}" for a, deps in GRAPH.items() for b in deps if layer(b) > layer(a))
    assert not upward, "imports against the layers (see docs/ARCHITECTURE.md):\n" + "\n".join(upward)


#: Bench scripts that count or time calls inside execute/ by wrapping its methods (they change no behaviour): the
#: one kind of script that must name what it measures. Any other bench script goes through the doors.
INSTRUMENTS = {"bench.lender_counts", "bench.phases"}


def _bench_graph() -> dict[str, set[str]]:
    graph = {f"bench.{path.stem}": _imports(path) & set(GRAPH) for path in sorted((ROOT / "bench").glob("*.py"))}
    assert INSTRUMENTS <= set(graph), "an instrument listed here is no longer in bench/: remove it from INSTRUMENTS"
    return {name: deps for name, deps in graph.items() if name not in INSTRUMENTS}


def test_nothing_outside_execute_imports_its_internals() -> None:
    """Neither grader/ outside execute/ nor bench/ reaches past execute's doors and vocabulary."""
    reaching = sorted(
        f"{a} -> {b}"
        for a, deps in [*GRAPH.items(), *_bench_graph().items()]
        if not _within(a, "grader.execute")
        for b in deps
        if _within(b, "grader.execute") and b not in EXECUTE_PUBLIC
    )
    assert not reaching, "import execute/ only through runner, upkeep, protocol and calls:\n" + "\n".join(reaching)


def test_the_doc_names_the_doors_this_file_checks() -> None:
    """The sentences checked here are the doc's: its doors, its vocabulary and who starts workers."""
    text = " ".join(ARCHITECTURE.read_text(encoding="utf-8").split())
    for module in EXECUTE_PUBLIC - {"grader.execute"}:
        assert f"`{module.removeprefix('grader.').replace('.', '/')}.py`" in text, module
    assert "only `grader.py` and `pipeline.py` import the runner" in text
    assert "`serve/` never imports `batch/`" in text


def test_serve_does_not_import_batch() -> None:
    arrows = sorted(
        f"{a} -> {b}"
        for a, deps in GRAPH.items()
        if _within(a, "grader.serve")
        for b in deps
        if _within(b, "grader.batch")
    )
    assert not arrows, "\n".join(arrows)


def test_only_the_grader_and_the_pipeline_start_workers() -> None:
    """Workers start through the runner, held by a Grader (grader.grader) or by the recipe it calls (pipeline);
    what else a grading process needs of execute/ is upkeep's."""
    users = {a for a, deps in GRAPH.items() if "grader.execute.runner" in deps and not _within(a, "grader.execute")}
    assert users == STARTS_WORKERS


def test_the_runner_exports_only_the_door() -> None:
    """``runner`` declares what it is for (``__all__``), and what it imports for its own use is not reached for."""
    from grader.execute import runner

    assert set(runner.__all__) == {"Runner", "Workers"}
    used = set()
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "bench").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "grader.execute.runner":
                used.update(alias.name for alias in node.names)
    assert used <= set(runner.__all__), used - set(runner.__all__)


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


#: The suite authors' API: what a lesson's hidden suites may import from the grader, each module's ``__all__``.
AUTHORS_API = ("grader.testing", "grader.checks", "grader.diagnose", "grader.reveal")


def _suite_files() -> list[Path]:
    return sorted([*ROOT.glob("exercises/*/suites/*.py"), *ROOT.glob("tests/fixtures/lessons/*/suites/*.py")])


def test_lesson_suites_import_only_the_authors_api() -> None:
    """A lesson's suites reach the grader only through grader.testing, grader.checks, grader.diagnose and
    grader.reveal (their ``__all__``), so the engine can change behind them. The constants grader.testing
    re-exports from grader.config (``REL_TOL``, ``STAND_IN_MAX_TOKENS``) are accepted from there too, as older
    suites take them."""
    import importlib

    public = {name: set(importlib.import_module(name).__all__) for name in AUTHORS_API}
    public["grader.config"] = public["grader.testing"] & set(vars(importlib.import_module("grader.config")))
    assert len(_suite_files()) > 10
    outside = []
    for path in _suite_files():
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                outside += [f"{where}: import {a.name}" for a in node.names if _within(a.name, "grader")]
            elif isinstance(node, ast.ImportFrom) and node.module and _within(node.module, "grader"):
                allowed = public.get(node.module, set())
                outside += [f"{where}: {node.module}.{a.name}" for a in node.names if a.name not in allowed]
    assert not outside, (
        "suites import from grader only " + ", ".join(AUTHORS_API) + " (their __all__):\n" + "\n".join(outside)
    )


def test_the_authors_api_is_declared_and_importable() -> None:
    """Each name an ``__all__`` promises is there (a rename would break every lesson's suites)."""
    import importlib

    for name in AUTHORS_API:
        module = importlib.import_module(name)
        missing = [n for n in module.__all__ if not hasattr(module, n)]
        assert module.__all__ and not missing, (name, missing)


def _layout_map(text: str) -> set[str]:
    """The modules and folders the architecture doc's map of ``grader/`` names (``read.py``, ``execute/``)."""
    found = re.search(r"layout of `grader/`\n\n```\ngrader/\n(.*?)```", text, re.DOTALL)
    assert found, "docs/ARCHITECTURE.md has no map of the layout of grader/"
    return {
        word
        for line in found[1].splitlines()
        for word in line.lstrip("│├└─ ").split("  ")[0].split()
        if re.fullmatch(r"\w+(\.py|/)", word)
    }


def test_the_layout_map_names_the_top_of_the_package() -> None:
    """The doc's map of grader/ by kind of module names each module and folder at the top of the package, and
    nothing that is not there, so a module added or moved at the top is placed among its kind."""
    top = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    top |= {f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    drawn = _layout_map(ARCHITECTURE.read_text(encoding="utf-8"))
    assert drawn == top, {"not on the map": sorted(top - drawn), "on the map, not in grader/": sorted(drawn - top)}


def test_a_module_missing_from_the_layout_map_is_seen() -> None:
    text = "layout of `grader/`\n\n```\ngrader/\n├── read.py score.py   steps\n└── cli.py   the command\n```\n"
    assert _layout_map(text) == {"read.py", "score.py", "cli.py"}
