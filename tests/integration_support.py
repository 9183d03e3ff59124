"""Shared by the Gradescope and nbgrader tests: a mix of Decode notebooks and the scores ``grade --json`` gives them.

"One score everywhere": each integration must reproduce these per-question scores exactly.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

import nbformat

from tests.conftest import REPO, run_grade
from tests.fixtures.decode_mistakes import MISTAKES

SOLUTION = REPO / "solutions" / "decode.ipynb"
NOTEBOOK = REPO / "notebooks" / "decode.ipynb"

#: Mistakes that score 0 on their question (gb_per_step, kv_decode_time) and partial credit
#: (generate, batch_throughput).
PARTLY_WRONG = ("gb_per_step", "generate", "batch_throughput", "kv_decode_time")
MIX = ("solution", "untouched", "partly_wrong")


def mix_notebook(kind: str) -> Any:
    """One notebook of the mix: the solution, the untouched learner notebook, or the solution with some mistakes."""
    if kind == "untouched":
        return nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(SOLUTION, as_version=4)
    if kind == "partly_wrong":
        for cell in nb.cells:
            if cell.get("id") in PARTLY_WRONG:  # an answer cell's id is its question's
                cell.source = MISTAKES[cell.id][0]
    return nb


def write_mix_notebook(kind: str, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(mix_notebook(kind), path)
    return path


@functools.cache
def reference_report(kind: str) -> dict[str, Any]:
    """``grade --json`` on one notebook of the mix, computed once per test session."""
    path = write_mix_notebook(kind, Path(tempfile.mkdtemp(prefix=f"mix-{kind}-")) / "decode.ipynb")
    result = run_grade(str(path), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def reference_scores(kind: str) -> dict[str, float]:
    return {q["id"]: q["score"] for q in reference_report(kind)["questions"]}
