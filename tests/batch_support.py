"""Helpers for the batch tests: write a class of fixture notebooks, run ``grade batch``, read its outputs."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path
from typing import Any

import nbformat

from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED, notebook, run_grade

LESSONS = ("--lessons", str(FIXTURE_LESSONS))
WRONG_SQUARE = [SQUARES_SOLVED[0], "def square(x):\n    return x + x", SQUARES_SOLVED[2]]
LOOPS_FOREVER = [SQUARES_SOLVED[0], "while True:\n    pass", *SQUARES_SOLVED[1:]]
KILLS_ITS_PARENT = ["import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", *SQUARES_SOLVED]
UNTOUCHED = [
    "answer_even = None",
    "def square(x):\n    raise NotImplementedError",
    "def sum_of_squares(xs):\n    raise NotImplementedError",
]

#: Expected per-question scores of the squares fixtures above.
SOLVED_SCORES = {"answer_even": 1.0, "square": 2.0, "sum_of_squares": 2.0}
WRONG_SCORES = {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
ZERO_SCORES = {"answer_even": 0.0, "square": 0.0, "sum_of_squares": 0.0}


def write_nb(path: Path, cells: list[Any], lesson: str | None = "squares") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(notebook(cells, lesson)), encoding="utf-8")
    return path


def batch(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real ``grade batch`` command."""
    return run_grade("batch", *args, timeout=timeout, env=env)


def grades(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        return {row["learner"]: row for row in csv.DictReader(f)}


def results(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {obj["learner"]: obj for obj in map(json.loads, lines)}


def question_scores(result: dict[str, Any]) -> dict[str, float]:
    return {q["id"]: q["score"] for q in result["questions"]}
