"""The batch's local pools (grader/batch/dispatch.py): grading processes started before the notebooks are read."""

from __future__ import annotations

import os
import time
from pathlib import Path

from grader.batch.dispatch import EarlyPool, run_local
from grader.batch.work import Settings, Task
from grader.pipeline import GradeOptions
from grader.read import read_submission
from tests.batch_support import SOLVED_SCORES, write_nb
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED

OPTIONS = GradeOptions(lessons_root=FIXTURE_LESSONS).for_any_lesson()


def _gone(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            return True
        time.sleep(0.05)
    return False


def test_an_early_pool_grades_the_first_round_and_one_not_needed_leaves_nothing(tmp_path: Path) -> None:
    """Started before the batch read its notebooks, the pool's processes grade the first round (the tasks get its
    in-flight folder, and the pool is taken); a batch with nothing to grade closes it: no process, no folder left."""
    early = EarlyPool(Settings(OPTIONS), 1, "squares")
    pool = early.pool
    assert pool is not None
    pids = list(pool._processes)  # started now, not when the first task comes
    assert len(pids) == 1
    submission = read_submission(write_nb(tmp_path / "ada.ipynb", SQUARES_SOLVED))
    task = Task("ada", submission, "squares", Settings(OPTIONS))
    results = list(run_local([task], 1, early))
    assert early.pool is None  # the first round took it
    [(done, report)] = results
    assert done.settings.inflight == early.folder and not isinstance(report, str)
    assert {q.id: q.score for q in report.questions} == SOLVED_SCORES
    early.close()
    assert _gone(pids) and not early.folder.exists()

    unused = EarlyPool(Settings(OPTIONS), 2, "squares")
    assert unused.pool is not None
    pids = list(unused.pool._processes)
    unused.close()
    assert _gone(pids) and not unused.folder.exists()
