"""The lender's worker (grader/execute/lender.py, lender_main.py): warm between learners, fresh for each of them.

A lender is kept warm for a grading process's whole life, so what one learner's arguments do inside it (a
solution function's cache or global filled, CPU seconds counted against its limit) must not reach the next
learner: each learner whose calls reach it is served by a fresh forked child of the state the solution left.
These tests use small solution notebooks of their own, whose functions can show state and how they were run.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS
from grader.execute.lender import Lender, Lenders, LentFunctionFailed
from grader.execute.worker import LearnerProcess
from grader.model import Submission
from grader.read import read_submission
from grader.suites.reference import load_reference
from tests.test_hostile import LEVELS, mode_of

pytestmark = pytest.mark.slow  # each test starts lenders' workers

SOLUTION = {
    "seen": "import os\nimport sys\nseen = []",
    "remember": "def remember(x):\n    seen.append(x)\n    return len(seen)",
    "loaded": "def loaded(module):\n    return module in sys.modules",
    "where": "def where(x):\n    return __name__",
    "die": "def die(code):\n    os._exit(code)",
}


def notebook(folder: Path, cells: dict[str, str]) -> Path:
    """A notebook of these code cells, as a lesson's solution would be."""
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "id": key, "metadata": {}, "source": source, "outputs": [], "execution_count": None}
            for key, source in cells.items()
        ],
    }
    path = folder / "solution.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


@pytest.fixture(params=LEVELS)
def lenders(request: pytest.FixtureRequest) -> Iterator[Lenders]:
    pool = Lenders(DEFAULT_LIMITS, mode_of(request.param))
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def solution(tmp_path: Path) -> Submission:
    return read_submission(notebook(tmp_path, SOLUTION))


def next_learner(lenders: Lenders, lender: Lender, solution: Submission) -> Lender:
    """Give ``lender`` back after one learner and take the one the next learner gets (the same, kept warm)."""
    lenders.give(lender)
    again = lenders.take(solution)
    assert again is lender
    again.ready()
    return again


def test_each_learner_after_one_that_called_gets_a_fresh_copy_of_the_solution(
    lenders: Lenders, solution: Submission, monkeypatch: pytest.MonkeyPatch
) -> None:
    renewals: list[int] = []
    renew = LearnerProcess.renew
    monkeypatch.setattr(LearnerProcess, "renew", lambda self: (renewals.append(1), renew(self))[1])
    lender = lenders.take(solution)
    lender.ready()
    assert [lender.call("remember", [x], {}) for x in ("a", "b")] == [1, 2]  # one learner sees its own calls
    lender = next_learner(lenders, lender, solution)
    assert lender.call("remember", ["c"], {}) == 1  # the next learner does not see them
    assert len(renewals) == 1
    lender = next_learner(lenders, lender, solution)  # this learner asks nothing: no fresh copy is needed after it
    lender = next_learner(lenders, lender, solution)
    assert len(renewals) == 2  # only after the learner who called
    assert lender.call("remember", ["d"], {}) == 1


def test_the_lender_runs_the_solution_as_the_trusted_reference_does(lenders: Lenders, solution: Submission) -> None:
    lender = lenders.take(solution)
    lender.ready()
    assert lender.call("loaded", ["IPython"], {}) is False  # plain exec: no IPython to import (a fifth of the boot)
    assert lender.call("where", [1], {}) == load_reference(solution.path).where(1) == "reference"


def test_a_child_that_dies_closes_the_channel_at_once_and_the_next_call_gets_a_new_lender(
    lenders: Lenders, solution: Submission
) -> None:
    lender = lenders.take(solution)
    lender.ready()
    # A timeout (ChannelTimeout) would mean the forked child died while its parent kept the channel open.
    with pytest.raises(LentFunctionFailed):
        lender.call("die", [7], {})
    assert lender.call("remember", ["e"], {}) == 1


def test_a_lender_started_on_a_thread_that_ends_stays_warm_for_the_next_learner(
    lenders: Lenders, solution: Submission, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon grades each ``grade`` on a thread of its own. A spawned worker dies with the thread that started
    it (bwrap's ``--die-with-parent``, ``PR_SET_PDEATHSIG``): started on that thread, the lender's worker was killed
    when the request ended and spawned again for every learner after it (~30 ms a notebook)."""
    spawned: list[int] = []
    start = LearnerProcess.__init__

    def counted(self: LearnerProcess, *args: object, **kwargs: object) -> None:
        spawned.append(1)
        start(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LearnerProcess, "__init__", counted)

    def one_learner() -> None:
        lender = lenders.take(solution)
        lender.ready()
        assert lender.call("remember", ["x"], {}) == 1
        lenders.give(lender)

    for _ in range(3):
        thread = threading.Thread(target=one_learner)
        thread.start()
        thread.join()
        time.sleep(0.2)  # time for a worker killed with its thread to be seen dead
    assert len(spawned) == 1


def test_idle_lenders_of_lessons_graded_before_the_last_two_are_closed(lenders: Lenders, tmp_path: Path) -> None:
    """A process grading lessons in turn (`grade class`, the daemon) kept a lender's worker for every lesson it had
    graded: six lessons, two grading processes, twelve processes of ~19 MB. The last two lessons' stay warm."""
    solutions = []
    for name in ("one", "two", "three"):
        (tmp_path / name).mkdir()
        solutions.append(read_submission(notebook(tmp_path / name, {**SOLUTION, "name": f"name = {name!r}"})))
    taken = []
    for solution in solutions:
        lender = lenders.take(solution)
        lender.ready()
        assert lender.call("remember", [solution.path.parent.name], {}) == 1
        lenders.give(lender)
        taken.append(lender)
    first, second, third = taken
    assert not first.warm and first._worker is None, "the first lesson's lender is still running"
    assert lenders.take(solutions[1]) is second, "the second lesson's lender was not kept warm"
    assert lenders.take(solutions[2]) is third
