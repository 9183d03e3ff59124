"""Send grading tasks to processes and bring back one result per task, surviving dead grading processes.

Two ways to run tasks, both yielding ``(task, result)`` as results arrive, where a result is a
:class:`Report` or, if the process grading it died, the sentence to record as the ``crashed`` reason:

- :meth:`LocalPools.run`: pools of local processes we own, which may be started before the tasks are known (while
  the batch reads its notebooks) and kept for the next batch (``grade class``'s lessons). A hostile notebook can
  kill the process grading it (its worker's parent), which breaks the whole pool. Tasks mark themselves in an
  in-flight folder, so we know which few were running; those are retried one at a time in a one-process pool (the
  one that breaks it is the culprit and gets a ``crashed`` row), then the rest go to a fresh pool.
- :func:`run_on`: any ``concurrent.futures``-style executor someone else owns (a Dask cluster's). A task
  whose worker died is reported as crashed (Dask retries it on other workers first, then gives up).

:class:`LessonError` from a task stops everything: the lesson is broken for every learner.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
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
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType

from grader.batch.work import Settings, Task, grade_task, start_grading_process
from grader.config import STOP_POLL_SECONDS, STOP_SECONDS
from grader.errors import GraderError, LessonError, Stopped
from grader.execute.upkeep import cpu_count, known_trial, remove_leftovers, remove_stale, remove_tree
from grader.model import Report

Result = Report | str

KILLED_REASON = "Grading this notebook stopped the process grading it (did the notebook kill its parent process?)."
INFLIGHT_PREFIX = "grade-inflight-"
"""``grade-inflight-{batch's pid}-{random}``: the next batch deletes it if this one is killed outright."""
INFLIGHT_REMOVE_TRIES = 10
"""Tries to delete the in-flight folder on the way out, ``STOP_POLL_SECONDS`` apart."""


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


@dataclass(frozen=True)
class _Live:
    """A pool whose grading processes are running and take tasks of ``settings``."""

    settings: Settings
    pool: ProcessPoolExecutor
    processes: int


class LocalPools:
    """The local grading processes of one batch, or of several batches one after another (``grade class``'s
    lessons, ``keep``).

    A pool's processes may be started before the tasks are known (:meth:`start`), so that they import, boot their
    zygotes and collect the suites while the batch process still reads the notebooks and opens the gradebook: one
    CPU did that alone before. With ``keep``, a pool whose tasks all came back is kept for the next :meth:`run` of
    the same settings (a Grader grades any lesson, and settings name none): each of a class's lessons was graded by
    processes that started, imported pytest and booted their zygotes anew. Without, it is told to end at once, and
    its processes exit while the batch writes its results.

    A context manager: on the way out, a pool still running is ended (stopped, if an exception is on its way), its
    processes are waited for and the in-flight folder is deleted. Signals are noted (:class:`_Stop`) only while
    :meth:`run` grades: before and between, Ctrl-C raises as anywhere, and the way out stops the pool."""

    def __init__(self, jobs: int | None = None, *, keep: bool = False) -> None:
        self.jobs = jobs or default_jobs()
        self.keep = keep
        self._stop = _Stop()
        self._live: _Live | None = None
        self._running: _Live | None = None
        """The pool a :meth:`run` grades in now: stopped on the way out if that run did not end (its caller raised)."""
        self._ending: list[BaseProcess] = []
        """The processes of pools told to end: they exit while the batch writes its results, and are waited for on
        the way out."""
        self._inflight: Path | None = None
        """Made on the way in (``with``): where each task marks itself while it runs."""

    def __enter__(self) -> LocalPools:
        remove_stale(INFLIGHT_PREFIX)
        self._inflight = _new_inflight()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        try:
            running, live = self._running, self._live
            self._running = self._live = None
            if running is not None:  # a run its caller left (it raised): stopped, as on an error
                _stop_pool(running.pool)
            if live is not None and exc_type is None:
                self._end(live.pool)
            elif live is not None:
                _stop_pool(live.pool)
            ending, self._ending = self._ending, []
            if exc_type is None:
                for process in ending:
                    process.join()
            else:  # on the way out of an error or a signal, every wait is bounded
                _stop_processes(ending)
            remove_leftovers()  # what a grading process that was killed (SIGTERM, or by a notebook) could not delete
        finally:
            folder, self._inflight = self._inflight, None
            if folder is not None:
                _remove_inflight(folder)

    def _marked(self, settings: Settings) -> Settings:
        """``settings`` with this batch's in-flight folder, where each task marks itself while it runs."""
        return replace(settings, inflight=self._folder())

    def _folder(self) -> Path:
        if self._inflight is None:
            raise GraderError("LocalPools grades only inside a `with` block (it makes its in-flight folder there).")
        return self._inflight

    def start(self, settings: Settings, most: int) -> None:
        """Start grading processes for tasks of ``settings`` now, unless some are running for them (``most``: at
        most this many, the learners there are): :meth:`run` grades those tasks in them."""
        marked, processes = self._marked(settings), min(self.jobs, most)
        if processes < 1 or self._fits(marked, processes):
            return
        self._retire()
        self._live = live = _Live(marked, _new_pool(marked, processes), processes)  # the way out stops it, whatever
        try:
            for _ in range(processes):  # each submission finds no idle process and starts one (a spawning pool)
                live.pool.submit(_started)
        except BrokenProcessPool:  # one died at once (a signal): the tasks will get a fresh pool
            self._live = None
            _stop_pool(live.pool)

    def run(self, tasks: list[Task]) -> Iterator[tuple[Task, Result]]:
        """Grade ``tasks``, yielding each with its result as it arrives. A signal stops it: raises :class:`Stopped`
        once the grading processes are gone."""
        with self._stop.installed():
            yield from self._rounds([replace(t, settings=self._marked(t.settings)) for t in tasks])

    def _rounds(self, pending: list[Task]) -> Iterator[tuple[Task, Result]]:
        suspects: list[Task] = []  # were running when a pool broke: retried one at a time
        while pending or suspects:
            alone = bool(suspects)
            tasks = suspects if alone else pending
            live = _Live(tasks[0].settings, _new_pool(tasks[0].settings, 1), 1) if alone else self._live_for(tasks)
            self._running = live
            unfinished = yield from _pool_round(tasks, live.pool, self._stop)
            self._running = None
            if unfinished:  # it broke: its processes are gone before its markers are read, and what they left
                live.pool.shutdown(wait=True, cancel_futures=True)
                remove_leftovers()
            elif alone or not self.keep:  # one process for one culprit, or one batch's pool: ended
                self._end(live.pool)
            else:
                self._live = live
            self._stop.check()  # the signal broke the pool: nothing is retried
            running = _take_markers(self._folder())
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

    def _fits(self, settings: Settings, processes: int) -> bool:
        """Whether the running pool takes tasks of ``settings`` with at least ``processes`` processes, all of them
        alive (one that died while the pool waited for the next batch broke it)."""
        live = self._live
        return (
            live is not None
            and live.settings == settings
            and live.processes >= processes
            and not live.pool._broken  # the pool's own record: set by its manager thread when a process dies
        )

    def _live_for(self, tasks: list[Task]) -> _Live:
        """The running pool, taken, if it fits ``tasks`` (else it is ended), or a new one."""
        settings, processes = tasks[0].settings, min(self.jobs, len(tasks))
        if not self._fits(settings, processes):
            self._retire()
            return _Live(settings, _new_pool(settings, processes), processes)
        live, self._live = self._live, None
        assert live is not None
        return live

    def _retire(self) -> None:
        """End the running pool, if there is one."""
        live, self._live = self._live, None
        if live is not None:
            self._end(live.pool)

    def _end(self, pool: ProcessPoolExecutor) -> None:
        """Tell ``pool`` to end: its processes exit by themselves, and are waited for on the way out."""
        self._ending.extend(_processes_of(pool))
        pool.shutdown(wait=False, cancel_futures=True)


def _new_inflight() -> Path:
    """A new in-flight folder, its name unpredictable and known before it exists (mode 0700, as ``mkdtemp``).

    SIGTERM makes ``grade`` raise SystemExit wherever its main thread is (:func:`grader.cli._stop`): made by
    ``TemporaryDirectory``, a signal between making the folder and keeping its name left it behind (a CI run of
    ``test_hostile_signals``'s "starting" stage). Here the name is kept first, and a signal while or after it is
    made deletes it. (Holding the signals back in the main thread does not do: the kernel gives a process's signal
    to any thread that does not hold it back, and Python then runs the handler in the main thread.)"""
    for _ in range(100):
        folder = Path(tempfile.gettempdir()) / f"{INFLIGHT_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue
        except BaseException:  # a signal as it was made: whether it was or not, nothing is left
            _remove_inflight(folder)
            raise
        return folder
    raise GraderError(f"No new folder could be made in {tempfile.gettempdir()} for the batch's grading processes.")


def _remove_inflight(folder: Path) -> None:
    """Delete the in-flight folder. A grading process stopped on the way out may still be writing its marker as the
    folder is emptied (a loaded machine, a process slow to die): a few tries, then whatever is left is the next
    batch's (:func:`remove_stale`)."""
    for _ in range(INFLIGHT_REMOVE_TRIES):
        if remove_tree(folder):
            return
        time.sleep(STOP_POLL_SECONDS)


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
    tasks: list[Task], pool: ProcessPoolExecutor, stop: _Stop
) -> Generator[tuple[Task, Result], None, list[Task]]:
    """Run tasks in ``pool``; return those left unfinished because the pool broke (the caller ends it, or keeps it
    when none was). A signal (``stop``) ends the round at the next look: what has arrived is yielded, then
    :class:`Stopped` is raised, once the pool is stopped."""
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
    return unfinished


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool at once, within a bound (:func:`_stop_processes`), then shut it down.

    Waiting for the pool to finish by itself (``shutdown(wait=True)``) waited for the notebooks being graded, and
    forever for a grading process that did not exit."""
    _stop_processes(_processes_of(pool))
    pool.shutdown(wait=True, cancel_futures=True)


def _stop_processes(processes: list[BaseProcess]) -> None:
    """SIGTERM to each grading process (it kills its learners' workers and exits within :data:`STOP_SECONDS`), SIGKILL
    to any still there a second after that."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + STOP_SECONDS + 1
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()  # its workers die with it (bubblewrap's --die-with-parent, PR_SET_PDEATHSIG)
            process.join(1)


def _processes_of(pool: ProcessPoolExecutor) -> list[BaseProcess]:
    """The pool's own processes (never another child of a library caller); none once it is shut down, which forgets
    them."""
    return list((pool._processes or {}).values())
