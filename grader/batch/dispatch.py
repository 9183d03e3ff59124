"""Send grading tasks to processes and bring back one result per task, surviving dead grading processes.

Two ways to run tasks, both yielding ``(task, result)`` as results arrive, where a result is a
:class:`Report` or, if the process grading it died, the sentence to record as the ``crashed`` reason:

- :class:`LocalPools` (:func:`run_local` in one call): pools of local processes we own, the first of which may
  be started before the tasks are known (while the batch reads its notebooks). A hostile notebook can kill the
  process grading it
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
import signal
import tempfile
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    Executor,
    Future,
    ProcessPoolExecutor,
    as_completed,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType

from grader.batch.work import Settings, Task, grade_task, start_grading_process
from grader.config import STOP_POLL_SECONDS, STOP_SECONDS
from grader.errors import GraderError, LessonError, Stopped
from grader.execute.upkeep import cpu_count, known_trial, remove_leftovers, remove_stale
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


class _Stop:
    """SIGTERM, SIGINT and SIGHUP while a batch grades locally: noted, and dispatch stops at its next look.

    ``timeout``, systemd and a CI cancel signal the whole process group, often several times. The handler only
    notes the first signal's number (a second one changes nothing): it takes no lock and waits on nothing, so it
    cannot re-enter or deadlock whatever the main thread was doing (recording a row in the gradebook, waiting on
    the pool). The dispatch loop looks every :data:`STOP_POLL_SECONDS`; then the grading processes are stopped
    within a bound (:func:`_stop_pool`) and :class:`Stopped` says what is kept. Installed only on the main thread
    (where signals are handled); once stopped, further signals are ignored: the process is on its way out."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

    def __init__(self) -> None:
        self.signum: int | None = None

    def _note(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    @contextmanager
    def installed(self) -> Iterator[_Stop]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        before = {sig: signal.getsignal(sig) for sig in self.SIGNALS}
        for sig, handler in before.items():
            if handler is not signal.SIG_IGN:  # `nohup grade batch ...` keeps ignoring SIGHUP
                signal.signal(sig, self._note)
        try:
            yield self
        finally:
            for sig, handler in before.items():
                signal.signal(sig, signal.SIG_IGN if self.signum is not None else handler)

    def check(self) -> None:
        """Raise :class:`Stopped` if a signal came."""
        if self.signum is not None:
            name = signal.Signals(self.signum).name
            raise Stopped(
                f"stopped by {name}: every notebook graded before it is kept in the gradebook; run the same command "
                "to grade the rest",
                self.signum,
            )


def run_local(tasks: list[Task], jobs: int | None = None) -> Iterator[tuple[Task, Result]]:
    """Run ``tasks`` in local process pools of ``jobs`` processes (default: one per core), rebuilding broken pools.

    A signal stops it (:class:`_Stop`): raises :class:`Stopped` once the grading processes are gone."""
    with LocalPools(jobs) as pools:
        yield from pools.run(tasks)


class LocalPools:
    """The local pools of grading processes of one batch (:func:`run_local`), whose first pool may be started
    before the tasks are known (:meth:`start`), so that its processes import, boot their zygotes and collect the
    suites while the batch process still reads the notebooks and opens the gradebook: one CPU did that alone before.

    A context manager: on the way out, a started pool no task used is stopped (:func:`_stop_pool`) and the in-flight
    folder is deleted. Signals are noted (:class:`_Stop`) only while :meth:`run` grades: before, Ctrl-C raises as
    anywhere, and the way out stops the started pool."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or default_jobs()
        self._stop = _Stop()
        self._started: tuple[Settings, ProcessPoolExecutor] | None = None
        self._ending: list[BaseProcess] = []
        """The processes of pools whose every task is done, told to end: they exit while the batch writes its
        results, and are waited for on the way out."""
        self._exits = ExitStack()
        self._inflight = Path()

    def __enter__(self) -> LocalPools:
        remove_stale(INFLIGHT_PREFIX)
        with ExitStack() as exits:
            self._inflight = Path(
                exits.enter_context(tempfile.TemporaryDirectory(prefix=f"{INFLIGHT_PREFIX}{os.getpid()}-"))
            )
            self._exits = exits.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._started is not None:
                _stop_pool(self._started[1])
                self._started = None
            while self._ending:
                self._ending.pop().join()
            remove_leftovers()  # what a grading process that was killed (SIGTERM, or by a notebook) could not delete
        finally:
            self._exits.close()

    def _marked(self, settings: Settings) -> Settings:
        """``settings`` with this batch's in-flight folder, where each task marks itself while it runs."""
        return replace(settings, inflight=self._inflight)

    def start(self, settings: Settings, most: int) -> None:
        """Start the grading processes of the first pool now (``most``: at most this many, the notebooks there are),
        for tasks of ``settings``: :meth:`run` grades those in it."""
        processes = min(self.jobs, most)
        if self._started is not None or processes < 1:
            return
        marked = self._marked(settings)
        pool = _new_pool(marked, processes)
        try:
            for _ in range(processes):  # each submission finds no idle process and starts one (a spawning pool)
                pool.submit(_started)
        except BrokenProcessPool:  # one died at once (a signal): the tasks will get a fresh pool
            _stop_pool(pool)
            return
        self._started = (marked, pool)

    def run(self, tasks: list[Task]) -> Iterator[tuple[Task, Result]]:
        """Grade ``tasks``, yielding each with its result as it arrives. A signal stops it: raises :class:`Stopped`
        once the grading processes are gone."""
        with self._stop.installed():
            yield from self._rounds([replace(t, settings=self._marked(t.settings)) for t in tasks])

    def _rounds(self, pending: list[Task]) -> Iterator[tuple[Task, Result]]:
        suspects: list[Task] = []  # were running when a pool broke: retried one at a time
        while pending or suspects:
            alone = bool(suspects)
            unfinished = yield from _pool_round(
                suspects if alone else pending,
                1 if alone else self.jobs,
                self._stop,
                self._ending,
                None if alone else self._take(),
            )
            self._stop.check()  # the signal broke the pool: nothing is retried
            running = _take_markers(self._inflight)
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

    def _take(self) -> tuple[Settings, ProcessPoolExecutor] | None:
        started, self._started = self._started, None
        return started


def _started() -> None:
    """The task a started pool is given per process, so that each is spawned at once: it does nothing."""


def _new_pool(settings: Settings, processes: int) -> ProcessPoolExecutor:
    """A pool of ``processes`` grading processes for tasks of ``settings`` (spawned as tasks are submitted)."""
    context = multiprocessing.get_context("spawn")  # no inherited threads or state from the batch process
    # One CPU per grading process, when there are CPUs enough for each to have its own (upkeep.keep_to_one_cpu).
    slots = context.Value("i", 0) if processes <= cpu_count() else None
    return ProcessPoolExecutor(
        max_workers=processes,
        mp_context=context,
        initializer=start_grading_process,
        initargs=(settings, os.getpid(), slots, known_trial()),
    )


def _take_markers(folder: Path) -> set[str]:
    """The learners whose tasks were running when their pool broke (their markers were never removed)."""
    names = set()
    for marker in folder.iterdir():
        names.add(marker.name)
        marker.unlink()
    return names


def _pool_round(
    tasks: list[Task],
    jobs: int,
    stop: _Stop,
    ending: list[BaseProcess],
    started: tuple[Settings, ProcessPoolExecutor] | None = None,
) -> Generator[tuple[Task, Result], None, list[Task]]:
    """Run tasks in one pool, ``started`` if it was started for their settings (else a fresh one); return those left
    unfinished because the pool broke. A pool whose tasks are all done is told to end, and its processes added to
    ``ending``, for the caller to wait for. A signal (``stop``) ends the round at the next look: what has arrived is
    yielded, then :class:`Stopped` is raised, once the pool is stopped."""
    if started is not None and started[0] == tasks[0].settings:
        pool = started[1]
    else:
        if started is not None:  # started for other settings: no task of these can use it
            _stop_pool(started[1])
        pool = _new_pool(tasks[0].settings, min(jobs, len(tasks)))
    unfinished: list[Task] = []
    try:
        futures: dict[Future[Report], Task] = {}
        for task in tasks:
            try:
                futures[pool.submit(grade_task, task)] = task
            except BrokenProcessPool:  # a grading process died while the pool started (a signal): not submitted
                unfinished.append(task)
        waiting = set(futures)
        while waiting:
            done, waiting = wait(waiting, timeout=STOP_POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    result: Result = future.result()
                except BrokenProcessPool:
                    unfinished.append(futures[future])
                    continue
                except LessonError:
                    raise
                except Exception as err:  # e.g. a result that could not be sent back
                    failed = f"The grader failed on this notebook ({type(err).__name__}: {err}); please report it."
                    result = failed[:500]
                yield futures[future], result
            stop.check()
    except BaseException:
        _stop_pool(pool)
        remove_leftovers()  # what a grading process that was killed (SIGTERM, or by a notebook) could not delete
        raise
    ending.extend(pool._processes.values())  # shutdown forgets them: the pool's own, never another child
    pool.shutdown(wait=False, cancel_futures=True)
    return unfinished


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once, within a bound: SIGTERM to each grading process (it kills its learners' workers and
    exits within :data:`STOP_SECONDS`), SIGKILL to any still there a second after that, then shut it down.

    Waiting for the pool to finish by itself (``shutdown(wait=True)``) waited for the notebooks being graded, and
    forever for a grading process that did not exit."""
    processes = list(pool._processes.values())  # the pool's own: never another child of a library caller
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + STOP_SECONDS + 1
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()  # its workers die with it (bubblewrap's --die-with-parent, PR_SET_PDEATHSIG)
            process.join(1)
    pool.shutdown(wait=True, cancel_futures=True)
