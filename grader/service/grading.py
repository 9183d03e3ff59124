"""The service's grading: warm grading processes that outlive requests, as a batch's do.

A check is a :class:`grader.batch.work.Task` (the learner's cells as a :class:`Submission`, on the numbers
drawn from the token's learner) run by :func:`grader.batch.work.grade_task` in a grading process that keeps
its :class:`grader.grader.Grader` (suites collected once, zygotes warm) from one request to the next. The
grading call is an :class:`concurrent.futures.Executor`'s ``submit``, so the processes can be a local pool
(:meth:`GradingPool.local`, one per core, spawned as a batch's are) or a Dask cluster's workers
(:func:`grader.batch.cluster.dask_executor`, ``grade serve --dask ADDRESS``): the task is the same picklable
data either way.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from grader.batch.work import Settings, Task, grade_task, start_grading_process
from grader.execute.upkeep import cpu_count, remove_leftovers
from grader.model import Cell, Lesson, Params, Report, Submission


def check_submission(learner: str, lesson: Lesson, cells: Sequence[str], params: Params) -> Submission:
    """The notebook a check grades: the cells the learner ran, in order, for ``lesson``, on ``params`` (drawn
    by the caller from the token's learner, never from anything the request says)."""
    digest = hashlib.sha256(json.dumps(list(cells)).encode()).hexdigest()
    return Submission(
        path=Path(f"{learner}.ipynb"),
        cells=tuple(Cell(index, source) for index, source in enumerate(cells)),
        lesson_id=lesson.id,
        digest=digest,
        params=params,
        # The cells carry no display copy; they ran in the learner's own kernel, so they are taken to show the
        # learner's own numbers: no "swapped notebook" flag (which would otherwise call every check one).
        shown_params=params,
        shown_learner=learner,
    )


class GradingPool:
    """Where checks are graded: ``submit`` a task, get a future of its report.

    A local pool whose grading process died (a machine fault: learner code cannot kill it, its worker can only
    die) is rebuilt for the next task, and the task it broke answers :class:`BrokenProcessPool`, which the
    service turns into "try again" (503)."""

    def __init__(self, make: Callable[[], Executor], processes: int) -> None:
        self._make = make
        self.processes = processes
        self._lock = threading.Lock()
        self._executor = make()

    @classmethod
    def local(cls, settings: Settings, processes: int | None = None) -> GradingPool:
        """One grading process per core (or ``processes``), each pinned to its own CPU when there are enough."""
        count = processes or cpu_count()

        def make() -> Executor:
            context = multiprocessing.get_context("spawn")  # no threads or state inherited from the event loop
            slots = context.Value("i", 0) if count <= cpu_count() else None
            return ProcessPoolExecutor(
                max_workers=count,
                mp_context=context,
                initializer=start_grading_process,
                initargs=(settings, os.getpid(), slots),
            )

        return cls(make, count)

    def submit(self, task: Task) -> Future[Report]:
        with self._lock:
            executor = self._executor
        future = executor.submit(grade_task, task)
        future.add_done_callback(lambda done: self._renew_if_broken(done, executor))
        return future

    def _renew_if_broken(self, done: Future[Report], executor: Executor) -> None:
        if done.cancelled() or not isinstance(done.exception(), BrokenProcessPool):
            return
        with self._lock:
            if self._executor is executor:
                self._executor = self._make()
        executor.shutdown(wait=False, cancel_futures=True)
        remove_leftovers()

    def warm(self) -> None:
        """Start every grading process now (each collects nothing until its first lesson, but boots a zygote)."""
        with self._lock:
            executor = self._executor
        for future in [executor.submit(os.getpid) for _ in range(self.processes)]:
            future.result()

    def close(self) -> None:
        with self._lock:
            self._executor.shutdown(wait=True, cancel_futures=True)
        remove_leftovers()
