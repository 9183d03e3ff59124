"""Hostile round (issue 29), item 1: restarts cost the notebook that causes them, within one bounded budget.

A notebook whose last cell sleeps just under the notebook's timeout and then makes every graded function
``os._exit(3)`` kills its worker on every hidden test's call at once (the budget for calls spends nothing), and
each next test started a worker again, which ran every cell again with a full notebook timeout: one timeout per
hidden test, with no bound. Every restart (its boot and its cells' run) is now drawn from the notebook's budget
for calls and cut at its end (``execute/target.py``, ``CallsClock.restarted``), so the notebook's cost is at most
its run, its budget for calls and one boot; the tests after that fail at once, told why, and only it pays.

Run at every isolation level of ``sandbox.LEVELS`` that works here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, WorkerMode
from grader.environment import ISOLATION_ENV
from grader.execute.protocol import CallsBudgetSpent, WorkerEnded
from grader.execute.runner import Workers
from grader.execute.worker import LearnerProcess
from grader.read import read_submission
from tests.batch_support import LESSONS, SOLVED_SCORES, batch, question_scores, results, write_nb
from tests.conftest import SQUARES_SOLVED
from tests.test_hostile import level_params

LEVELS = level_params()

SLEEP = 1.0
"""What the hostile last cell sleeps: each run of the notebook takes at least this."""


def crashes_every_call(sleep: float = SLEEP) -> list[str]:
    """The squares solution, then a cell that sleeps and makes every graded function end its process at once."""
    return [
        *SQUARES_SOLVED,
        f"import os, time\ntime.sleep({sleep})\nsquare = sum_of_squares = lambda *a, **k: os._exit(3)",
    ]


@pytest.fixture(params=LEVELS)
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(ISOLATION_ENV, request.param)  # for the `grade` commands a test starts
    return str(request.param)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float | None]]:
    """Each run of a notebook in this process (``until`` of each), counted where the grader starts it."""
    seen: list[float | None] = []
    real = LearnerProcess.run_notebook

    def counted(self: LearnerProcess, *until: float | None):  # type: ignore[no-untyped-def]
        seen.append(until[0] if until else None)
        return real(self, *until)

    monkeypatch.setattr(LearnerProcess, "run_notebook", counted)
    yield seen


@pytest.mark.slow
def test_each_restart_after_a_crash_is_drawn_from_the_notebooks_budget(
    level: str, runs: list[float | None], tmp_path: Path
) -> None:
    """Twenty calls, each killing the worker at once: the notebook is run again only while its budget for calls
    lasts (about ``calls / SLEEP`` times, the last run cut at its end), then every call fails at once, told why."""
    calls = 3.0
    limits = replace(DEFAULT_LIMITS, timeout=10.0, calls_timeout=calls)
    submission = read_submission(write_nb(tmp_path / "mallory.ipynb", crashes_every_call()))
    workers = Workers(limits, WorkerMode(isolation=level))
    told = []
    try:
        worker = workers.start(submission)
        worker.run_notebook()
        target = workers.target(submission, worker)
        for _ in range(20):
            try:
                target.call("square", [3], {}, {})
            except WorkerEnded as err:
                assert "exited with status 3" in str(err)
            except CallsBudgetSpent as err:
                told.append(str(err))
    finally:
        workers.close()
    assert len(runs) <= 1 + calls / SLEEP + 1, f"the notebook ran {len(runs)} times for 20 calls"
    assert told, "the budget was never spent: restarts cost the notebook nothing"
    assert "after a call stopped it" in told[-1] and f"the notebook's {calls:g} s of time" in told[-1]
    assert all(until is not None for until in runs[-1:]), "the last run again was not cut at the budget's end"


@pytest.mark.slow
def test_a_notebook_crashing_every_call_beside_an_honest_one_costs_only_itself(level: str, tmp_path: Path) -> None:
    """``grade batch`` of the solution beside the hostile notebook: the honest learner is graded in full, and the
    hostile one is told what its calls did (attacks/restart_amplification.py runs the same on decode, with times)."""
    folder = tmp_path / "subs"
    write_nb(folder / "honest.ipynb", SQUARES_SOLVED)
    write_nb(folder / "mallory.ipynb", crashes_every_call())
    out = tmp_path / "out"
    done = batch(str(folder), *LESSONS, "--out", str(out), "--jobs", "2", "--timeout", "10")
    assert done.returncode == 0, done.stderr[-2000:]
    graded = results(out)
    assert question_scores(graded["honest"]) == SOLVED_SCORES
    mallory = graded["mallory"]
    assert mallory["status"] == "graded"
    assert question_scores(mallory) == {**SOLVED_SCORES, "square": 0.0, "sum_of_squares": 0.0}
    told = " ".join(f for q in mallory["questions"] for f in q["feedback"])
    assert "exited with status 3" in told
