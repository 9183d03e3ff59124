"""The one door into ``execute/``: how a grading process starts the workers that run learners' notebooks.

A :class:`Runner` belongs to one grading process (``grade NOTEBOOK``, a batch's grading process, the daemon).
It chooses how each worker starts: forked from a warm sandboxed zygote when the isolation level allows one
(bubblewrap), spawned as a new interpreter otherwise, and a real kernel with ``WorkerMode.kernel`` (see
:mod:`grader.execute.worker`); it owns the zygotes, one per notebook graded at once. :meth:`Runner.workers`
lends the :class:`Workers` of one notebook, which start its :class:`LearnerProcess` and the
:class:`WorkerTarget` hidden tests call.

The rest of ``execute/`` (zygote, limits, sandbox, process, worker, channel) is private to it: code outside
imports this module, :mod:`grader.execute.upkeep` (the second door: what a grading process does about its
machine and what dead processes left, without starting a worker), :mod:`grader.execute.protocol` (what
crosses) and :mod:`grader.execute.calls` (what one learner call means, which self-check shares with the
worker) only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from grader.config import Limits, WorkerMode
from grader.execute.lender import Lender, Lenders
from grader.execute.process import Kept
from grader.execute.sandbox import probe_soon
from grader.execute.target import WorkerTarget
from grader.execute.worker import LearnerProcess
from grader.execute.zygote import Zygote
from grader.model import Submission

__all__ = ["Runner", "Workers"]


class Workers:
    """Starts the workers of one notebook at a time: forked from ``zygote`` when there is one, spawned otherwise.
    Whoever makes one ends its workers (their processes and folders): ``with Workers(...) as workers``, or
    :meth:`close`; :meth:`Runner.workers` does."""

    def __init__(
        self, limits: Limits, mode: WorkerMode, zygote: Zygote | None = None, lenders: Lenders | None = None
    ) -> None:
        """``lenders``: the runner's, kept warm between notebooks; None: this notebook's own, closed with it."""
        self.limits, self.mode = limits, mode
        self._zygote = zygote
        self._lenders = lenders or Lenders(limits, mode)
        self._own_lenders = lenders is None
        self._lender: Lender | None = None
        self._boot: Kept[LearnerProcess] | None = None
        """A boot under way on a thread of its own (no zygote to fork from): see :meth:`boot`."""
        self._booting: LearnerProcess | None = None
        """A worker booted and not yet started."""
        self._booting_keeper: Kept[LearnerProcess] | None = None
        """The thread that spawned ``_booting``, if one did: released when that worker is closed."""
        self._keepers: list[Kept[LearnerProcess]] = []
        """The threads that spawned the workers handed out, released once they are closed."""
        self._started: list[LearnerProcess] = []
        """Every worker handed out: :meth:`close` ends them, however grading ended (SIGTERM is a SystemExit)."""
        self._targets: list[WorkerTarget] = []
        """Every target handed out: :meth:`close` ends the workers they started again after a call stopped one."""

    def boot(self, submission: Submission, solution: Submission | None = None) -> None:
        """Start ``submission``'s worker now, so it boots while the caller does something slow (imports pytest), and
        the lender of ``solution``'s functions (if given) too.

        Forked from a zygote, a worker starts in a millisecond. Spawned (a cold ``grade NOTEBOOK``, and any runner
        without a zygote: the process level, ``GRADER_WORKERS=spawn``, ``--kernel``), each is a sandbox probed (once
        a process) and a new interpreter started: ~40 ms of this thread, which a cold grade spent before it could
        import pytest. Then both are started on a thread of their own, which lives until they are closed (a spawned
        worker dies with the thread that started it), and whatever needs them (:meth:`start`, :meth:`lender`,
        :meth:`ready`, :meth:`close`) waits for that thread first. What the boot raised is raised by :meth:`ready`
        (or :meth:`start`, :meth:`lender`), and by :meth:`close` never: an error the caller met meanwhile wins."""
        self._drop_booted()
        if self._zygote is not None:
            self._booting = LearnerProcess(submission, self.limits, self.mode, self._zygote)
            if solution is not None:
                self._lender_of(solution)
            return

        def spawn() -> LearnerProcess:
            worker = LearnerProcess(submission, self.limits, self.mode)
            if solution is not None:
                try:
                    self._lender_of(solution)
                except BaseException:
                    worker.close()
                    raise
            return worker

        self._boot = Kept(spawn, "grader-boot")

    def ready(self) -> None:
        """Wait for a boot under way on its own thread (see :meth:`boot`), if there is one; what it raised is raised
        here. Interrupted (a signal's ``SystemExit``), the boot stays to be waited for again by :meth:`close`."""
        failed = self._settle_boot()
        if failed is not None:
            raise failed

    def _settle_boot(self) -> BaseException | None:
        """Wait for the boot under way, if any; keep the worker it made (and its thread), or return what it raised."""
        boot = self._boot
        if boot is None:
            return None
        made = boot.outcome()
        self._boot = None
        if isinstance(made, BaseException):
            boot.release()
            return made
        self._booting, self._booting_keeper = made, boot
        return None

    def _drop_booted(self) -> None:
        """Close a worker booted and never started (once its boot is done; one that failed left nothing), and let
        the thread that spawned it go."""
        self._settle_boot()
        worker, keeper = self._booting, self._booting_keeper
        self._booting = self._booting_keeper = None
        try:
            if worker is not None:
                worker.close()
        finally:
            if keeper is not None:
                keeper.release()

    def lender(self, solution: Submission) -> Lender:
        """The lender of ``solution``'s functions for this notebook (:mod:`grader.execute.lender`), started now."""
        self.ready()
        return self._lender_of(solution)

    def _lender_of(self, solution: Submission) -> Lender:
        if self._lender is not None and self._lender.solution != solution:
            self._lenders.give(self._lender)
            self._lender = None
        if self._lender is None:
            self._lender = self._lenders.take(solution)
        return self._lender

    def start(self, submission: Submission) -> LearnerProcess:
        """``submission``'s worker: the one :meth:`boot` started for it, or a new one."""
        self.ready()
        if self._booting is not None and self._booting.submission is not submission:
            self._drop_booted()
        worker, keeper = self._booting, self._booting_keeper
        self._booting = self._booting_keeper = None
        if keeper is not None:
            self._keepers.append(keeper)
        worker = worker or LearnerProcess(submission, self.limits, self.mode, self._zygote)
        self._started.append(worker)
        return worker

    def target(
        self, submission: Submission, worker: LearnerProcess, solution: Submission | None = None
    ) -> WorkerTarget:
        """What hidden tests call: ``worker``, restarted from the same zygote if a call kills it; the functions of
        ``solution`` it lends run in this notebook's lender."""
        lender = None if solution is None else self.lender(solution)
        target = WorkerTarget(submission, self.limits, self.mode, worker, self._zygote, lender)
        self._targets.append(target)
        return target

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End every worker started here, by :meth:`start` or by a target (closing one twice does nothing), and one
        booted but never started; then release the threads that spawned them and give the lender back. Each step is
        taken even if one before it raised (the first error is raised, the others chained to it)."""
        with ExitStack() as after:  # its callbacks run last registered first
            after.callback(self._give_lender)
            after.callback(self._release_keepers)
            after.callback(self._drop_booted)  # waits for a boot under way: it may be taking the lender
            for worker in self._started:
                after.callback(worker.close)
            for target in self._targets:
                after.callback(target.close)
            self._started.clear()
            self._targets.clear()

    def _release_keepers(self) -> None:
        for keeper in self._keepers:
            keeper.release()
        self._keepers.clear()

    def _give_lender(self) -> None:
        if self._lender is not None:
            self._lenders.give(self._lender)
            self._lender = None
        if self._own_lenders:
            self._lenders.close()


class Runner:
    """A grading process's workers: warm zygotes where the isolation level allows them, one per notebook at a time."""

    def __init__(self, limits: Limits, mode: WorkerMode, *, fork: bool = True) -> None:
        """``fork`` False: always spawn (a one-notebook grader, for which a zygote would not pay)."""
        self.limits, self.mode = limits, mode
        self._lock = threading.Lock()  # Dask may run several tasks of one process in threads
        self._idle: list[Zygote] = []
        """Warm zygotes not grading anyone now: one per task running at once in this process."""
        self._zygotes: list[Zygote] = []
        """Every zygote started, idle or not: what :meth:`abandon` must not leave behind."""
        self._forks = fork
        self._warming: threading.Thread | None = None
        self._lenders = Lenders(limits, mode)
        """The lesson solutions' lenders, one per notebook graded at once, warm between notebooks."""
        if not fork:
            probe_soon(mode)  # a warm runner's zygote, booting in the background, probes instead

    @contextmanager
    def workers(self) -> Iterator[Workers]:
        """The workers of one notebook, with a zygote only it uses while it is graded (if there is one)."""
        zygote = self._take_zygote()
        workers = Workers(self.limits, self.mode, zygote, self._lenders)
        try:
            yield workers
        finally:
            workers.close()
            if zygote is not None:
                with self._lock:
                    self._idle.append(zygote)

    def warm(self) -> None:
        """Boot a zygote now, so that the first notebook does not wait for it."""
        zygote = self._take_zygote()
        if zygote is not None:
            with self._lock:
                self._idle.append(zygote)

    def warm_soon(self) -> None:
        """Boot a zygote in the background, so that it boots while this process imports and collects the suites."""
        with self._lock:
            if self._warming is not None or not self._forks:
                return
            self._warming = threading.Thread(target=self.warm, name="zygote-warm", daemon=True)
            self._warming.start()  # under the lock: no task can find it set but not started

    def _take_zygote(self) -> Zygote | None:
        """A zygote only this task uses, started on first need; None where workers are spawned instead."""
        warming = self._warming
        if warming is not None and warming is not threading.current_thread():
            warming.join()  # the zygote booting in the background is the one to take
        with self._lock:
            if self._idle:
                return self._idle.pop()
            if not self._forks:
                return None
        zygote = Zygote.start(self.limits, self.mode)
        with self._lock:
            if zygote is None:
                self._forks = False
            else:
                self._zygotes.append(zygote)
        return zygote

    def close(self) -> None:
        self._lenders.close()
        with self._lock:
            for zygote in self._zygotes:
                zygote.close()
            self._zygotes.clear()
            self._idle.clear()

    def abandon(self) -> None:
        """On the way out of a dying process: stop the zygotes and delete their folders, nothing slower."""
        self._lenders.close()
        for zygote in list(self._zygotes):
            try:
                zygote.close()
            except Exception:  # noqa: BLE001 - dying: one zygote that cannot be closed must not keep the others
                pass
