"""The course service end to end, as a course runs it: a real ``grade serve`` on loopback, a notebook released
to one learner with ``grade build --roster --service``, that learner's ``grade NOTEBOOK`` and ``grade submit``
answered by the service from a folder with no lesson in it, the same notebook run in a real kernel that finds
no lesson (its check cells and its ``submit()`` answered by the service), and the service's store exported and graded by
``grade batch`` on the same roster: the same score either way (one notebook, one score, wherever it is graded).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.authoring.release import release
from grader.lessons import load_lesson
from grader.params import draw
from tests.conftest import REPO
from tests.service_support import SECRET, free_port, service_process, wait_up

LESSONS = REPO / "exercises"
LESSON = load_lesson("decode", LESSONS)


def _grade(args: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real ``grade``, with the course secret nowhere in its environment (the learner's side)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GRADER_COURSE_SECRET", "GRADER_LESSONS")}
    return subprocess.run(["grade", *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def _answered(released: Path, out: Path) -> Path:
    """The released notebook with every answer cell taken from the lesson's solution (whose Part 1 is worked on
    the page's numbers, so it may be wrong for this learner's own): its setup cell and metadata stay the
    release's, so it still names the service and the learner's token."""
    nb = nbformat.read(released, as_version=4)
    solution = nbformat.read(LESSON.solution, as_version=4)
    answers = {c.get("id"): c.source for c in solution.cells if c.cell_type == "code"}
    for cell in nb.cells:
        if cell.cell_type == "code" and "self-check" not in cell.metadata.get("tags", []) and cell.get("id") in answers:
            cell.source = answers[cell.get("id")]
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return out


def _run_in_a_kernel_without_lessons(notebook: Path, empty: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``notebook`` run top to bottom in a real Jupyter kernel (nbclient, as JupyterLab runs it) whose lessons
    folder is empty and which has no course secret: its checks and its hand-in can only be the service's."""
    from nbclient import NotebookClient

    empty.mkdir()
    monkeypatch.setenv("GRADER_LESSONS", str(empty))
    monkeypatch.delenv("GRADER_COURSE_SECRET")
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))  # what Jupyter's server sets in a kernel's environment
    nb = nbformat.read(notebook, as_version=4)
    NotebookClient(nb, timeout=300, allow_errors=True, resources={"metadata": {"path": str(notebook.parent)}}).execute()
    return nb


def _shown(cell: Any) -> str:
    return "".join(output.get("text", "") for output in cell.outputs)


@pytest.mark.slow
def test_a_released_learner_checks_and_hands_in_through_grade_serve_and_the_batch_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_COURSE_SECRET", SECRET.decode())
    roster = tmp_path / "roster.csv"
    roster.write_text("learner,identity\nada,ada@example.edu\ngrace,grace@example.edu\n", encoding="utf-8")
    port, db = free_port(), tmp_path / "service.sqlite"
    base = f"http://127.0.0.1:{port}"
    released = release(LESSON, roster, tmp_path / "released", LESSONS, service=base)
    ada = _answered(next(p for p in released if p.parent.name == "ada"), tmp_path / "home" / "ada" / "decode.ipynb")
    serve = ["grade", "serve", "--lessons", str(LESSONS), "--roster", str(roster), "--database", str(db)]
    secret = {"GRADER_COURSE_SECRET": SECRET.decode()}
    with service_process([*serve, "--port", str(port), "--jobs", "1"], secret) as process:
        wait_up(base, process)
        checked = _grade([ada.name, "--json", "--service"], ada.parent)  # the lessons here are the checkout's
        assert checked.returncode == 0, checked.stderr
        report: dict[str, Any] = json.loads(checked.stdout)
        handed = _grade(["submit", ada.name, "--service"], ada.parent)
        assert handed.returncode == 0, handed.stderr
        ran = _run_in_a_kernel_without_lessons(ada, tmp_path / "no-lessons", monkeypatch)
    assert report["isolation"] == "the course service" and report["max_score"] == LESSON.max_score
    functions = [q for q in report["questions"] if LESSON.question(q["id"]).kind == "function"]
    assert functions and all(q["status"] == "passed" for q in functions), functions
    assert "ada" in handed.stdout and "decode" in handed.stdout, handed.stdout
    # Run All is within a learner's rate (more checks at once than the notebook has): every check is answered,
    # and each agrees with the whole notebook's grade.
    checks = {c.source[7:-2]: _shown(c) for c in ran.cells if c.source.startswith('check("')}
    verdicts = {q: shown.startswith(f"✓ {q}:") for q, shown in checks.items() if shown.startswith(("✓", "✗"))}
    assert verdicts.keys() == checks.keys(), checks
    assert verdicts == {q["id"]: q["status"] == "passed" for q in report["questions"] if q["id"] in verdicts}
    assert _shown(ran.cells[-1]).startswith("Handed in: decode by ada, attempt 2,"), _shown(ran.cells[-1])
    # What the learner was told is only the learner-safe feedback: never a by-hand answer worked on their numbers.
    mine = dict(draw(LESSON, "ada@example.edu", SECRET))
    seconds = mine["params_b"] * 1e9 * mine["bytes_per_param"] / (mine["tb_per_s"] * 1e12)
    told = json.dumps([q["feedback"] for q in report["questions"]] + report["errors"])
    for right in (f"{seconds * 1e3:.2f}", f"{seconds * 1e3:.3f}", f"{1 / seconds:.1f}", f"{1 / seconds:.2f}"):
        assert right not in told, (right, told)

    exported = tmp_path / "exported"
    export = _grade(["serve", "export", "--out", exported, "--database", db, "--lessons", LESSONS], tmp_path)
    assert export.returncode == 0, export.stderr
    assert (exported / "decode" / "ada.ipynb").is_file()
    results = tmp_path / "results"
    batch = ["batch", exported / "decode", "--lesson", "decode", "--lessons", LESSONS, "--roster", roster]
    env = {**os.environ, "GRADER_COURSE_SECRET": SECRET.decode()}
    graded = subprocess.run(
        ["grade", *map(str, [*batch, "--out", results])], capture_output=True, text=True, env=env, timeout=600
    )
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with (results / "grades.csv").open(encoding="utf-8") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    assert float(rows["ada"]["score"]) == report["score"], (rows["ada"], report["score"])
