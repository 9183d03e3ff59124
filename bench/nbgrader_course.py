"""nbgrader's side of the bench: its own virtual environment, a course laid out for it, and its scores.

The environment (``bench/.venv-nbgrader``) gets nbgrader, ipykernel and this package (editable), so the
autograder test cells of ``exercises/decode/nbgrader/decode.ipynb`` (``nbgrader_cell_score(...)``) can run in nbgrader's
kernel. It is made once and reused while its recorded requirements are unchanged.

The course: ``source/<assignment>/decode.ipynb`` (the lesson's nbgrader notebook, from ``grade build``),
``submitted/<learner>/<assignment>/decode.ipynb`` (that notebook with each learner's answer cells) and an
``nbgrader_config.py``; ``nbgrader
generate_assignment`` records the assignment and its grade cells in ``gradebook.db``, then ``nbgrader
autograde`` grades the submissions.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / "bench" / ".venv-nbgrader"
ASSIGNMENT = "decode"
NBGRADER = os.environ.get("BENCH_NBGRADER_REQUIREMENT", "nbgrader==0.9.6")

_DUMP_SCORES = """
import json, sys
from nbgrader.api import Gradebook
out = {}
with Gradebook(sys.argv[1]) as gb:
    for sub in gb.assignment_submissions(sys.argv[2]):
        nb = gb.find_submission_notebook(sys.argv[3], sys.argv[2], sub.student_id)
        out[sub.student_id] = {"score": float(nb.score), "max_score": float(nb.max_score),
                               "cells": {g.name: float(g.score) for g in nb.grades}}
print(json.dumps(out))
"""


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(log: Path) -> Path:
    """Create or reuse the environment; return its python. Output of pip goes to ``log``."""
    requirements = [NBGRADER, "ipykernel", "-e", str(REPO)]
    stamp = VENV / "bench-requirements.json"
    if venv_python().exists() and stamp.exists() and json.loads(stamp.read_text()) == requirements:
        return venv_python()
    shutil.rmtree(VENV, ignore_errors=True)
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, stdout=out, stderr=subprocess.STDOUT)
        subprocess.run(
            [str(venv_python()), "-m", "pip", "install", "--disable-pip-version-check", "-q", *requirements],
            check=True, stdout=out, stderr=subprocess.STDOUT,
        )
    stamp.write_text(json.dumps(requirements))
    return venv_python()


def venv_env() -> dict[str, str]:
    """The environment nbgrader runs in: the venv first on PATH, and Jupyter's paths inside the venv only,
    so its kernel is the venv's python whatever kernels this machine has registered."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env["JUPYTER_PATH"] = str(VENV / "share" / "jupyter")
    env["JUPYTER_DATA_DIR"] = str(VENV / "share" / "jupyter")
    env["JUPYTER_CONFIG_DIR"] = str(VENV / "etc" / "jupyter")
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def ensure_kernel(python: Path) -> None:
    """Register the venv's python as the ``python3`` kernel inside the venv (what the notebooks ask for)."""
    subprocess.run(
        [str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"],
        check=True, env=venv_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


EMPTIED = "# emptied: this course times nbgrader running the notebook, not grading it\n"


def lay_out_course(
    course: Path, submissions: dict[str, Path], execution_only: bool = False, lesson: str = ASSIGNMENT
) -> None:
    """``course/`` for nbgrader, with ``submissions`` (learner id -> notebook) as submitted files.

    ``execution_only`` empties the autograder test cells of the source notebook (nbgrader restores locked
    cells from it), so autograde only runs the learners' cells in a kernel: nbgrader's cost without any
    grading, whose scores mean nothing.
    """
    shutil.rmtree(course, ignore_errors=True)
    (course / "source" / lesson).mkdir(parents=True)
    source = json.loads((REPO / "exercises" / lesson / "nbgrader" / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    if execution_only:
        for cell in source["cells"]:
            if cell["cell_type"] == "code" and cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
                cell["source"] = EMPTIED
    (course / "source" / lesson / f"{lesson}.ipynb").write_text(json.dumps(source, indent=1) + "\n", encoding="utf-8")
    for learner, path in submissions.items():
        target = course / "submitted" / learner / lesson
        target.mkdir(parents=True)
        (target / f"{lesson}.ipynb").write_text(json.dumps(as_nbgrader_submission(source, path), indent=1) + "\n", encoding="utf-8")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.root = %r\n"
        "c.CourseDirectory.course_id = 'bench'\n"
        "c.CourseDirectory.db_assignments = [dict(name=%r)]\n"
        "c.CourseDirectory.db_students = [%s]\n"
        "c.ExecutePreprocessor.timeout = 60\n"
        % (str(course), lesson, ", ".join(f"dict(id={s!r})" for s in submissions))
    )


def as_nbgrader_submission(source: dict[str, Any], learner_notebook: Path) -> dict[str, Any]:
    """What an nbgrader learner would hand in: the nbgrader notebook with the learner's answer cells.

    The bench's submissions are made from the learner notebook (``grade``'s), which has no nbgrader cells;
    its answer cells have the ids of the nbgrader notebook's solution cells (both built by ``grade build``).
    """
    answers = {c.get("id"): c["source"] for c in json.loads(learner_notebook.read_text(encoding="utf-8"))["cells"]}
    submission = copy.deepcopy(source)
    for cell in submission["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and cell.get("id") in answers:
            cell["source"] = answers[cell["id"]]
    return submission


def nbgrader(python: Path, course: Path, *args: str) -> list[str]:
    """The command line of one nbgrader step, run from the course folder."""
    return [str(python), "-m", "nbgrader", *args]


def generate_assignment(python: Path, course: Path, log: Path, lesson: str = ASSIGNMENT) -> None:
    with log.open("a") as out:
        subprocess.run(nbgrader(python, course, "generate_assignment", lesson, "--force"),
                       cwd=course, env=venv_env(), check=True, stdout=out, stderr=subprocess.STDOUT)


def autograde_command(python: Path, course: Path, student: str | None = None, lesson: str = ASSIGNMENT) -> list[str]:
    args = ["autograde", lesson, "--force"]
    if student:
        args += ["--student", student]
    return nbgrader(python, course, *args)


def scores(python: Path, course: Path, lesson: str = ASSIGNMENT) -> dict[str, dict[str, object]]:
    """Per learner: nbgrader's total, max and per-cell scores from the course's gradebook."""
    result = subprocess.run(
        [str(python), "-c", _DUMP_SCORES, f"sqlite:///{course / 'gradebook.db'}", lesson, lesson],
        cwd=course, env=venv_env(), check=True, capture_output=True, text=True,
    )
    return json.loads(result.stdout)


def versions(python: Path) -> dict[str, str]:
    code = (
        "import json, importlib.metadata as m\n"
        "print(json.dumps({p: m.version(p) for p in ('nbgrader', 'nbconvert', 'nbclient', 'jupyter_client', 'ipykernel')}))"
    )
    result = subprocess.run([str(python), "-c", code], env=venv_env(), capture_output=True, text=True, check=True)
    return json.loads(result.stdout)
