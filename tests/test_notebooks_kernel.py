"""The lesson notebooks run top to bottom in a real Jupyter kernel, self-check cells included."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from grader.lessons import load_lesson
from tests.conftest import REPO

MAX = f"{load_lesson('decode').max_score:g}"


def run_in_kernel(path: Path, tmp_path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def outputs_text(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", "") or str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


def errors(nb: nbformat.NotebookNode) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]


@pytest.mark.slow
def test_solution_runs_clean_and_checks_itself_to_full_marks(tmp_path: Path) -> None:
    nb = run_in_kernel(REPO / "solutions" / "decode.ipynb", tmp_path)
    assert errors(nb) == []
    text = outputs_text(nb)
    assert f"Total: {MAX} / {MAX}" in text
    assert "✗" not in text and "not attempted" not in text


@pytest.mark.slow
def test_learner_notebook_runs_and_reports_not_attempted(tmp_path: Path) -> None:
    nb = run_in_kernel(REPO / "notebooks" / "decode.ipynb", tmp_path)
    assert errors(nb) == []
    text = outputs_text(nb)
    assert "not attempted yet" in text and f"Total: 0 / {MAX}" in text
    assert "Fill in tokens_per_second" in text  # the plot cell says kindly why there is no plot yet
