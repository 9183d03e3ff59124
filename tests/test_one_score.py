"""One notebook, one score: every way of grading gives each question of a notebook the same points.

Each tool is a function in :data:`TOOLS` that grades a list of notebooks and returns, per notebook stem,
``{question id: score}``; :func:`question_scores` runs one. Add a tool (Gradescope, nbgrader, ...) by adding
an entry: the test compares every tool with ``grade``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.batch_support import batch, results
from tests.conftest import REPO, run_grade

Scores = dict[str, dict[str, float]]
"""Notebook stem -> {question id: score}."""

#: A short run-time limit for every tool, so the notebook that loops forever is stopped quickly.
TIMEOUT = "3"
#: The bundled Decode examples: right, unit slips, untouched, a top-level loop (the non-notebook is left out:
#: ``grade`` refuses it, so there is no score to compare).
NOTEBOOKS = [REPO / "examples" / "submissions" / f"{name}.ipynb" for name in ("ada", "grace", "linus", "edsger")]


def by_grade(notebooks: Sequence[Path], workdir: Path) -> Scores:
    def one(path: Path) -> dict[str, float]:
        result = run_grade(str(path), "--json", "--timeout", TIMEOUT)
        assert result.returncode == 0, result.stderr
        return {q["id"]: q["score"] for q in json.loads(result.stdout)["questions"]}

    with ThreadPoolExecutor(2) as pool:
        return dict(zip((p.stem for p in notebooks), pool.map(one, notebooks), strict=False))


def by_batch(notebooks: Sequence[Path], workdir: Path, *extra: str) -> Scores:
    subs = workdir / "subs"
    subs.mkdir(parents=True, exist_ok=True)
    for path in notebooks:
        shutil.copy(path, subs / path.name)
    out = workdir / "results"
    result = batch(str(subs), "--out", str(out), "--timeout", TIMEOUT, "--lesson", "decode", *extra)
    assert result.returncode == 0, result.stderr
    return {learner: {q["id"]: q["score"] for q in line["questions"]} for learner, line in results(out).items()}


def by_batch_on_dask(notebooks: Sequence[Path], workdir: Path) -> Scores:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        return by_batch(notebooks, workdir, "--dask", cluster.scheduler_address)


def by_gradescope(notebooks: Sequence[Path], workdir: Path) -> Scores:
    """``grade gradescope`` on one /autograder-like folder per notebook; a test's name starts with its question id."""

    def one(path: Path) -> dict[str, float]:
        root = workdir / path.stem
        (root / "submission").mkdir(parents=True)
        shutil.copy(path, root / "submission" / path.name)
        result = run_grade("gradescope", "--root", str(root), "--timeout", TIMEOUT)
        assert result.returncode == 0, result.stderr
        tests = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))["tests"]
        return {t["name"].split(":")[0]: t["score"] for t in tests}

    with ThreadPoolExecutor(2) as pool:
        return dict(zip((p.stem for p in notebooks), pool.map(one, notebooks), strict=False))


TOOLS: dict[str, Callable[[Sequence[Path], Path], Scores]] = {
    "grade": by_grade,
    "grade batch": by_batch,
    "grade batch --dask": by_batch_on_dask,
    "grade gradescope": by_gradescope,
}


def question_scores(tool: str, notebooks: Sequence[Path], workdir: Path) -> Scores:
    """``{notebook stem: {question: score}}`` as ``tool`` grades ``notebooks`` (in its own ``workdir``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    return TOOLS[tool](notebooks, workdir)


@pytest.mark.slow
def test_every_tool_gives_every_question_the_same_score(tmp_path: Path) -> None:
    reference = question_scores("grade", NOTEBOOKS, tmp_path / "grade")
    assert set(reference) == {p.stem for p in NOTEBOOKS}
    assert len({tuple(s.values()) for s in reference.values()}) >= 3  # a real mix: right, partly right, zero
    for tool in TOOLS:
        if tool != "grade":
            assert question_scores(tool, NOTEBOOKS, tmp_path / tool.replace(" ", "_")) == reference, tool
