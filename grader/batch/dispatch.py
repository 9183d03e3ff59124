"""Send grading tasks to processes and bring back one result per task, surviving dead grading processes.

Two ways to run tasks, both yielding ``(task, result)`` as results arrive, where a result is a
:class:`Report` or, if the process grading it died, the sentence to record as the ``crashed`` reason:

- :func:`run_local`: pools of local processes we own. A hostile notebook can kill the process grading it
  (its worker's parent), which breaks the whole pool. Tasks mark themselves in an in-flight folder, so we
  know which few were running; those are retried one at a time in a one-process pool (the one that breaks
  it is the culprit and gets a ``crashed`` row), then the rest go to a fresh pool.
- :func:`run_on`: any ``concurrent.futures``-style executor someone else owns (a Dask cluster's). A task
  whose worker died is reported as crashed (Dask retries it on other workers first, then gives up).

:class:`LessonError` from a task stops everything: the lesson is broken for every learner.
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from pathlib import Path

from grader.batch.work import Task, grade_task, start_grading_process
from grader.errors import GraderError, LessonError
from grader.execute.upkeep import cpu_count, remove_leftovers, remove_stale
from grader.model import Report

Result = Report | str

KILLED_REASON = "Grading this notebook stopped the process grading it (did the notebook kill its parent process?)."
INFLIGHT_PREFIX = "grade-inflight-"
"""``grade-inflight-{batch's pid}-{random}``: the next batch deletes it if this one is killed outright."""


def default_jobs() -> int:
    return cpu_count()


def run_on(executor: Executor, tasks: Iterable[Task]) -> Iterator[tuple[Task, Result]]:
    """Run ``tasks`` on an executor we do not own; a task whose worker died is a crashed result."""
    futures = {executor.submit(grade_task, task): task for task in tasks}
    for future in as_completed(futures):
        try:
            result: Result = future.result()
        except GraderError:
            raise
        except BrokenExecutor as err:
            raise GraderError(
                f"The executor stopped working ({err}); graded rows are kept: run the batch again."
            ) from None
        except Exception as err:  # e.g. Dask's KilledWorker: this task kept killing its workers
            result = f"The worker grading this notebook failed ({type(err).__name__}: {err})."[:500]
        yield futures[future], result


def run_local(tasks: list[Task], jobs: int | None = None) -> Iterator[tuple[Task, Result]]:
    """Run ``tasks`` in local process pools of ``jobs`` processes (default: one per core), rebuilding broken pools."""
    jobs = jobs or default_jobs()
    remove_stale(INFLIGHT_PREFIX)
    with tempfile.TemporaryDirectory(prefix=f"{INFLIGHT_PREFIX}{os.getpid()}-") as inflight:
        folder = Path(inflight)
        pending = [replace(t, settings=replace(t.settings, inflight=folder)) for t in tasks]
        suspects: list[Task] = []  # were running when a pool broke: retried one at a time
        while pending or suspects:
            alone = bool(suspects)
            unfinished = yield from _pool_round(suspects if alone else pending, 1 if alone else jobs)
            running = _take_markers(folder)
            if unfinished and not running:
                raise GraderError("The grading processes stopped before grading anything; run the batch again.")
            if alone:  # one process, one task at a time: the task that was running is the culprit
                for task in unfinished:
                    if task.learner in running:
                        yield task, KILLED_REASON
                suspects = [t for t in unfinished if t.learner not in running]
            else:
                suspects = [t for t in unfinished if t.learner in running]
                pending = [t for t in unfinished if t.learner not in running]


def _take_markers(folder: Path) -> set[str]:
    """The learners whose tasks were running when their pool broke (their markers were never removed)."""
    names = set()
    for marker in folder.iterdir():
        names.add(marker.name)
        marker.unlink()
    return names


def _pool_round(tasks: list[Task], jobs: int) -> Generator[tuple[Task, Result], None, list[Task]]:
    """Run tasks in one fresh pool; return those left unfinished because the pool broke."""
    processes = min(jobs, len(tasks))
    context = multiprocessing.get_context("spawn")  # no inherited threads or state from the batch process
    # One CPU per grading process, when there are CPUs enough for each to have its own (upkeep.keep_to_one_cpu).
    slots = context.Value("i", 0) if processes <= cpu_count() else None
    pool = ProcessPoolExecutor(
        max_workers=processes,
        mp_context=context,
        initializer=start_grading_process,
        initargs=(tasks[0].settings, os.getpid(), slots),
    )
    unfinished: list[Task] = []
    try:
        futures: dict[Future[Report], Task] = {pool.submit(grade_task, task): task for task in tasks}
        for future in as_completed(futures):
            try:
                result: Result = future.result()
            except BrokenProcessPool:
                unfinished.append(futures[future])
                continue
            except LessonError:
                raise
            except Exception as err:  # e.g. a result that could not be sent back
                result = f"The grader failed on this notebook ({type(err).__name__}: {err}); please report it."[:500]
            yield futures[future], result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        remove_leftovers()  # what a grading process that was killed (SIGTERM, or by a notebook) could not delete
    return unfinished
