"""What the learner's kernel knows that the course service needs: the cells the learner ran, and the notebook file.

``check()`` against the service cannot hand over the kernel's namespace, so it sends what made it: the kernel's
input history, in order, without the self-check calls themselves (the setup cell, ``check``, ``hint``,
``submit``) and without the saved notebook's other ``self-check`` cells (the plots, the step-through), which a
grade never runs either. ``submit()`` hands in the notebook as saved on disk (JupyterLab saves only when asked),
found through ``JPY_SESSION_NAME``, which Jupyter's server sets in each kernel's environment.
Standard library only (and the engine's basics), like the rest of the learner's side.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

from grader.config import SKIP_TAG

#: The names a notebook's self-check cells call; their calls are left out of what a check sends.
HELPERS = frozenset({"check", "check_all", "hint", "submit", "connect", "connect_service"})


def _is_helper(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").startswith(("grader.selfcheck", "grader.service"))
    value = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in HELPERS


def without_helpers(source: str) -> str:
    """``source`` without its top-level self-check statements (``check("q")``, the setup cell's lines); a cell
    that does not parse as Python (a magic, a typo) is kept whole, as a grade runs it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines()
    for node in reversed(tree.body):
        if _is_helper(node) and node.end_lineno is not None:
            del lines[node.lineno - 1 : node.end_lineno]
    return "\n".join(lines) if any(line.strip() for line in lines) else ""


def history(namespace: dict[str, Any]) -> list[str]:
    """The kernel's input history, oldest first: IPython's raw inputs when ``namespace`` is its shell's (a check
    from a notebook), else the namespace's own ``In`` (another shell in this process is not this notebook's)."""
    try:
        from IPython.core.getipython import get_ipython

        shell = get_ipython()  # type: ignore[no-untyped-call,unused-ignore]  # typed in IPython 9, not 8
    except ImportError:
        shell = None
    manager = shell.history_manager if shell is not None and shell.user_ns is namespace else None
    raw = manager.input_hist_raw if manager is not None else namespace.get("In", [])
    return [str(cell) for cell in raw if isinstance(cell, str)]


def ran_cells(namespace: dict[str, Any], notebook: dict[str, Any] | None) -> list[str]:
    """The cells to send for a check: what the learner ran, without the self-check calls, and without the cells
    the saved ``notebook`` tags ``self-check``."""
    skipped = {cell_source(c).strip() for c in code_cells(notebook) if SKIP_TAG in cell_tags(c)}
    cells = []
    for source in history(namespace):
        if source.strip() in skipped:
            continue
        kept = without_helpers(source)
        if kept.strip():
            cells.append(kept)
    return cells


def code_cells(notebook: dict[str, Any] | None) -> list[dict[str, Any]]:
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    return [c for c in cells or [] if isinstance(c, dict) and c.get("cell_type") == "code"]


def cell_source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(map(str, source)) if isinstance(source, list) else str(source)


def cell_tags(cell: dict[str, Any]) -> list[str]:
    metadata = cell.get("metadata")
    tags = metadata.get("tags") if isinstance(metadata, dict) else None
    return [str(t) for t in tags] if isinstance(tags, list) else []


def notebook_path(given: str | Path | None, namespace: dict[str, Any]) -> Path | None:
    """The notebook file this kernel runs: ``given``, else Jupyter's ``JPY_SESSION_NAME`` (absolute, or relative
    to the server's folder: then the kernel's folder holds it), else VS Code's ``__vsc_ipynb_file__``."""
    if given is not None:
        return Path(given)
    for name in (os.environ.get("JPY_SESSION_NAME"), namespace.get("__vsc_ipynb_file__")):
        if not isinstance(name, str) or not name.endswith(".ipynb"):
            continue
        for candidate in (Path(name), Path.cwd() / name, Path.cwd() / Path(name).name):
            if candidate.is_file():
                return candidate
    return None


def read_notebook(path: Path) -> dict[str, Any] | None:
    """The notebook at ``path`` as parsed JSON, or None when it is not one (missing, unreadable, not JSON)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("cells"), list) else None


def record_runs(namespace: dict[str, Any]) -> dict[str, str]:
    """From now on, each notebook cell's last run source, by the cell id the front end sends with each run
    (JupyterLab and VS Code do; IPython hands it to ``pre_run_cell``): how :func:`unsaved` tells a cell edited,
    run and saved from one edited and run since the save. Empty where ``namespace`` is not an IPython shell's."""
    runs: dict[str, str] = {}
    try:
        from IPython.core.getipython import get_ipython

        shell = get_ipython()  # type: ignore[no-untyped-call,unused-ignore]  # typed in IPython 9, not 8
    except ImportError:
        return runs
    if shell is None or shell.user_ns is not namespace:
        return runs

    def seen(info: Any) -> None:
        cell_id = getattr(info, "cell_id", None)
        if isinstance(cell_id, str) and isinstance(info.raw_cell, str):
            runs[cell_id] = info.raw_cell

    shell.events.register("pre_run_cell", seen)
    return runs


def unsaved(namespace: dict[str, Any], notebook: dict[str, Any], runs: dict[str, str] | None = None) -> int:
    """How many cells this kernel ran, self-check calls aside, that the saved ``notebook`` does not hold as
    they last ran (edited or added since the last save). With ``runs`` (:func:`record_runs`) each cell's last
    run is compared with the saved cell of its id, so an answer run wrong, then fixed, run and saved, counts
    for nothing; without them, every run the saved file does not hold counts."""
    if runs:
        by_id = {c.get("id"): without_helpers(cell_source(c)).strip() for c in code_cells(notebook)}
        last = {cell_id: without_helpers(source).strip() for cell_id, source in runs.items()}
        return sum(1 for cell_id, source in last.items() if source and by_id.get(cell_id) != source)
    saved = {without_helpers(cell_source(c)).strip() for c in code_cells(notebook)}
    return sum(1 for cell in ran_cells(namespace, notebook) if cell.strip() not in saved)
