"""The grading side of a batch: what runs in each grading process (a local pool worker or a Dask worker).

A grading process keeps one :class:`GradingContext`, which holds its :class:`grader.grader.Grader`: the
hidden suites are imported and collected once per process, then run against many notebooks (the batch
process itself imports this module for Task and the pool's functions only, never pytest). Each notebook's
code still runs in its own worker, forked from a warm zygote the Grader's runner keeps (at the bubblewrap
level) instead of a new interpreter.

Executors call module-level functions, so the context is a documented per-process cache
(:data:`_PROCESS_CONTEXT`): a local pool creates it in its initializer (:func:`start_grading_process`); a
Dask worker, which has no initializer, creates it on its first task. Tasks carry their settings, and a
context built for other settings is replaced.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.util import Finalize
from pathlib import Path
from typing import Any

from grader.config import STOP_SECONDS
from grader.execute.upkeep import Trial, adopt_trial, exit_at_once, keep_to_one_cpu, kill_workers
from grader.grader import Grader
from grader.model import Report, Submission
from grader.pipeline import GradeOptions


@dataclass(frozen=True)
class Settings:
    """What every grading process needs to know; plain, picklable data."""

    grading: GradeOptions
    """The batch's grading options, without a lesson (:meth:`GradeOptions.for_any_lesson`: each task names its
    own): what the process's :class:`Grader` is built from."""
    inflight: Path | None = None
    """A local folder where each task marks itself while it runs, so a batch can tell which notebook was
    being graded when a grading process died (see :mod:`grader.batch.dispatch`)."""


@dataclass(frozen=True)
class Task:
    """Grade one submission (already read by the batch) against one lesson."""

    learner: str
    submission: Submission
    lesson_id: str
    settings: Settings
    questions: frozenset[str] | None = None
    """The questions whose hidden tests run (None: all). A service check of one question runs that question's
    tests only; the others are reported as not checked, and the service answers only the ones asked."""


class GradingContext:
    """One grading process's state: its :class:`Grader`, built for the batch's settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.grader = Grader(settings.grading)

    def grade(self, task: Task) -> Report:
        """Grade one submission. Learner behaviour never raises; a grader failure becomes a ``crashed`` report."""
        return self.grader.grade(task.submission, task.lesson_id, questions=task.questions)

    def close(self) -> None:
        self.grader.close()

    def abandon(self) -> None:
        """On the way out of a dying process: stop the zygotes and delete their folders, nothing slower."""
        self.grader.abandon()


_PROCESS_CONTEXT: GradingContext | None = None
"""This process's grading context: the per-process cache described in the module docstring."""
_PROCESS_CONTEXT_LOCK = threading.Lock()


def context_for(settings: Settings) -> GradingContext:
    """This process's context for ``settings``, created on first use (or when a batch with other settings comes)."""
    global _PROCESS_CONTEXT
    with _PROCESS_CONTEXT_LOCK:
        if _PROCESS_CONTEXT is None or _PROCESS_CONTEXT.settings != settings:
            if _PROCESS_CONTEXT is not None:
                _PROCESS_CONTEXT.close()
            _PROCESS_CONTEXT = GradingContext(settings)
            atexit.register(_PROCESS_CONTEXT.close)  # a Dask worker's normal exit: no zygote folder left behind
        return _PROCESS_CONTEXT


def grade_task(task: Task) -> Report:
    """The function executors run. Raises only :class:`LessonError`, which stops the batch (an instructor must
    fix it)."""
    context = context_for(task.settings)
    marker = task.settings.inflight / task.learner if task.settings.inflight else None
    if marker is not None:
        marker.write_text(str(os.getpid()))
    try:
        return context.grade(task)
    finally:
        if marker is not None:
            marker.unlink(missing_ok=True)


def start_grading_process(settings: Settings, parent_pid: int, slots: Any = None, trial: Trial | None = None) -> None:
    """Initializer of a local pool worker: build the context now, and never leave learner code running behind.

    Ctrl-C is left to the batch process, which stops the pool. If the pool is torn down (SIGTERM) or the
    batch process is killed (``kill -9``), this worker kills the learner processes it started, then exits.
    ``slots``: a shared counter (``multiprocessing.Value``) from which each grading process takes the next
    CPU to keep to, with the workers it starts; None leaves placement to the scheduler. ``trial``: the batch
    process's trial of bubblewrap, taken as this one's (None: this process tries it itself).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_on_sigterm()
    if trial is not None:
        adopt_trial(trial)
    if slots is not None:
        with slots.get_lock():
            slot, slots.value = slots.value, slots.value + 1
        keep_to_one_cpu(slot)  # before any thread or zygote is started: they inherit it
    context = context_for(settings)
    context.grader.warm_soon()
    Finalize(None, _close, args=(context,), exitpriority=10)  # pool workers skip atexit; multiprocessing runs this
    # Last, after the context is closed: results went back on the pool's queue as each task finished, and nothing is
    # buffered but what stdout and stderr hold, so the interpreter's teardown is skipped.
    Finalize(None, exit_at_once, args=(0,), exitpriority=0)
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), name="parent-watch", daemon=True).start()


_CLOSING = threading.RLock()
"""Held while the context is closed on the way out by the pool's own exit (its finalizer, in the main thread).
:func:`_exit_now` (the parent-watch thread, or SIGTERM's) waits for it, for at most :data:`STOP_SECONDS`, before
it abandons the context: otherwise it found the workers already marked closed and exited while their folders were
still being deleted, and could leave them behind (a killed batch left worker folders so, once, on a loaded
machine). Never taken by a signal handler: only by threads, each bounded."""


def _close(context: GradingContext) -> None:
    with _CLOSING:
        context.close()


def _abandon_after_close(context: GradingContext) -> None:
    """Let a close under way finish (bounded), then abandon what is left of the context."""
    if _CLOSING.acquire(timeout=STOP_SECONDS):
        _CLOSING.release()
    context.abandon()


def _exit_when_orphaned(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    _exit_now()


def _exit_on_sigterm() -> None:
    """On SIGTERM, end this process from a thread of its own; the signal handler itself does nothing.

    ``timeout``, systemd, a CI cancel and ``kill -TERM -PGID`` signal the whole process group, often several
    times, and the batch process passes SIGTERM on too. A Python handler runs on the main thread wherever grading
    was: one that cleaned up re-entered itself inside ``Lenders.close`` and waited forever on the lock its own
    interrupted frame held (issue 29, item 2). Here the C-level handler writes the signal's number to a pipe
    (``signal.set_wakeup_fd``), at once, even while the main thread is inside C code or holds a lock, and a
    thread that waits on that pipe does the exit, once (:func:`_exit_now`)."""
    wake, woken = os.pipe()
    os.set_blocking(woken, False)  # a full pipe drops a signal's byte: one is enough
    signal.set_wakeup_fd(woken, warn_on_full_buffer=False)
    signal.signal(signal.SIGTERM, lambda *_: None)  # a Python handler is what makes the C one write to the pipe
    threading.Thread(target=_exit_when_woken, args=(wake,), name="sigterm-watch", daemon=True).start()


def _exit_when_woken(wake: int) -> None:
    while signal.SIGTERM not in os.read(wake, 64):
        pass
    _exit_now()


_EXITING = threading.Lock()
"""Taken, never waited on, by the one call of :func:`_exit_now` that ends the process."""


def _exit_now() -> None:
    """Kill this process's children (each learner worker leads its own process group), then exit.

    Once: a second caller (the parent-watch and the SIGTERM threads may both come) returns at once, the first
    exits. A close under way and deleting the workers' folders are each given :data:`STOP_SECONDS`; whatever they
    meet, the process exits then (the batch deletes what is left, ``remove_leftovers``): an orphaned grading
    process must not stay behind."""
    if not _EXITING.acquire(blocking=False):
        return
    try:
        kill_workers()  # reads /proc and signals process groups: no lock, nothing to wait on
        if _PROCESS_CONTEXT is not None:  # their sandboxes are dead now; their folders are not
            abandon = threading.Thread(target=_abandon_after_close, args=(_PROCESS_CONTEXT,), daemon=True)
            abandon.start()
            abandon.join(2 * STOP_SECONDS)  # a close under way (STOP_SECONDS at most), then the abandon's own
    finally:
        os._exit(1)
