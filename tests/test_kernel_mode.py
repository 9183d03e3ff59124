"""The real-kernel mode (``grade --kernel``): cells run in ipykernel through nbclient, in the same sandbox,
and every result reads as it does on the default path."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, WorkerMode
from grader.errors import UsageError
from grader.execute import sandbox
from grader.execute.protocol import Returned
from grader.execute.runner import Workers
from grader.execute.worker import start_worker
from grader.lessons import load_lesson
from grader.model import Report, Submission
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, run_grade
from tests.test_hostile import WHOLE_NOTEBOOK, batch_notebooks, write_nb

KERNEL = WorkerMode(kernel=True)
PROBE = [
    "SHELL = type(get_ipython()).__name__",
    "import asyncio\nawait asyncio.sleep(0)\nAWAITED = True",
    *SQUARES_SOLVED,
]


@pytest.mark.parametrize(
    ("mode", "shell"),
    [pytest.param(KERNEL, "ZMQInteractiveShell", marks=pytest.mark.slow), (DEFAULT_MODE, "GradingShell")],
)
def test_the_cells_run_in_a_real_kernel_only_when_asked(mode: WorkerMode, shell: str, tmp_path: Path) -> None:
    """A kernel's own shell runs the cells (top-level await included), and answers the calls afterwards."""
    submission = read_submission(write_nb(tmp_path, "probe", PROBE))
    worker, execution = start_worker(submission, DEFAULT_LIMITS, mode)
    try:
        assert execution.cell_errors == ()
        assert (worker.value("SHELL"), worker.value("AWAITED")) == (shell, True)
        assert worker.call("square", [7], {}, {}) == Returned(49)
    finally:
        worker.close()


KERNEL_CASES = ("clean", "loop_top", "sys_exit", "os_exit", "segfault", "memory", "input")


@pytest.mark.slow
def test_hostile_notebooks_get_the_default_paths_results_in_a_kernel(tmp_path: Path) -> None:
    """A loop, sys.exit, os._exit, a segfault, a memory hog and input() in a kernel: the same score and the
    same sentence as without one (input() is refused the kernel's way, with the same advice)."""
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    limits = replace(DEFAULT_LIMITS, timeout=3.0, call_timeout=1.0, max_file_mb=4)
    notebooks = batch_notebooks("unused")
    submissions = {name: read_submission(write_nb(tmp_path, name, notebooks[name])) for name in KERNEL_CASES}

    def graded(submission: Submission) -> Report:
        with Workers(limits, KERNEL) as workers:
            return grade_submission(submission, lesson, suites, workers, lent_solution(lesson))

    with SuiteSession(lesson) as suites, ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(graded, sub) for name, sub in submissions.items()}
        reports = {name: future.result() for name, future in futures.items()}
    for name in KERNEL_CASES:
        score, errors = WHOLE_NOTEBOOK[name]
        if name == "input":
            errors = tuple(e.replace("raised EOFError", "raised StdinNotImplementedError") for e in errors)
        assert (reports[name].score, reports[name].errors) == (score, errors), name


def _results(folder: Path) -> dict[str, dict[str, object]]:
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return {row["learner"]: {k: v for k, v in row.items() if k != "isolation"} for row in rows}


@pytest.mark.slow
def test_grade_batch_kernel_gives_the_default_paths_reports(tmp_path: Path) -> None:
    """The real command, both ways, on bundled examples (solved, partly wrong, untouched): same reports."""
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for learner in ("ada", "alan", "linus"):
        shutil.copy(REPO / "examples" / "submissions" / f"{learner}.ipynb", submissions)
    kernel = run_grade("batch", str(submissions), "--out", str(tmp_path / "kernel"), "--kernel", "--lesson", "decode")
    default = run_grade("batch", str(submissions), "--out", str(tmp_path / "default"), "--lesson", "decode")
    assert kernel.returncode == 0 and default.returncode == 0, kernel.stderr + default.stderr
    assert "Traceback" not in kernel.stderr
    results = _results(tmp_path / "kernel")
    assert results == _results(tmp_path / "default")
    assert {k: v["score"] for k, v in results.items()} == {"ada": 35.0, "alan": 27.5, "linus": 0.0}


@pytest.mark.slow
def test_grade_kernel_on_the_solution_gives_full_marks() -> None:
    done = run_grade(str(REPO / "solutions" / "decode.ipynb"), "--kernel", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["score"], report["max_score"]) == (35.0, 35.0)


def test_without_nbclient_the_kernel_mode_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sandbox.importlib.util.find_spec
    monkeypatch.setattr(
        sandbox.importlib.util, "find_spec", lambda name, *a: None if name == "nbclient" else real(name, *a)
    )
    with pytest.raises(UsageError, match=r"needs nbclient: install it with .*inference-grader\[kernel\]"):
        sandbox.check_settings(KERNEL)
    sandbox.check_settings(DEFAULT_MODE)  # the default path does not need it
