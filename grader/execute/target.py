"""The bridge from hidden tests to a learner's worker: calls, values, and a restart after a crash.

If one call hangs or kills the worker, only that test fails: the next call starts a fresh worker and runs
the notebook again, on the notebook's budget for calls (:class:`CallsClock`), which every call and every restart
draws from. If the notebook itself cannot be run again, every later call fails with that reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from grader.config import Limits, WorkerMode
from grader.errors import GraderError, MachineFailed
from grader.execute.calls import CallsClock
from grader.execute.lender import Lender
from grader.execute.protocol import (
    ChannelClosed,
    ChannelError,
    ChannelTimeout,
    Returned,
    WorkerEnded,
)
from grader.execute.reach import Reach, reach_of
from grader.execute.worker import LearnerProcess
from grader.execute.zygote import Zygote
from grader.model import Submission


class WorkerTarget:
    """A :class:`grader.testing.Target` backed by a worker process that holds the executed notebook."""

    def __init__(
        self,
        submission: Submission,
        limits: Limits,
        mode: WorkerMode,
        worker: LearnerProcess,
        zygote: Zygote | None = None,
        lender: Lender | None = None,
    ) -> None:
        """``lender``: where the lesson's solution functions run when they are lent (None: nothing is lent)."""
        self._submission = submission
        self._lender = lender
        self._zygote = zygote
        self._limits, self._mode = limits, mode
        self._worker: LearnerProcess | None = worker
        self._broken: str | None = None
        self._fault: str | None = None
        self._clock = CallsClock(limits.budget)
        """The notebook's budget for the hidden tests' calls, and for every restart a call's failure costs."""
        self._reach: Reach | None = None
        """Which global names each of the notebook's functions can look up: read on the first call that asks."""
        self._lender_started = False
        """Whether the lender was made ready for this notebook once (that first start is the machine's time)."""

    def _live(self) -> LearnerProcess:
        if self._broken is not None:
            raise ChannelClosed(self._broken)
        if self._worker is None:
            self._worker = self._again()
        return self._worker

    def _again(self) -> LearnerProcess:
        """A new worker that has run the notebook again, after a call stopped the last one.

        Its start and its cells' run are drawn from the notebook's budget for calls, and the run is cut at that
        budget's end: else a notebook whose every call kills its worker at once (nothing spent) made each hidden
        test run its cells again with a full notebook's timeout, for as many tests as the lesson has."""
        seconds, limited = self._clock.allowed(self._limits.budget.notebook)  # raises once the budget is spent
        started = time.monotonic()
        try:
            try:
                return self._run_again(started + seconds if limited else None)
            finally:
                self._clock.restarted(time.monotonic() - started)
        except ChannelTimeout:
            if limited:  # cut at the budget's end
                raise self._clock.spent() from None
            raise

    def _run_again(self, until: float | None) -> LearnerProcess:
        worker = LearnerProcess(self._submission, self._limits, self._mode, self._zygote)
        try:
            worker.run_notebook(until)
        except MachineFailed as err:  # the machine's failure: the notebook is not graded (see fault)
            self._broken = self._fault = f"the grader could not start a worker to run your notebook again ({err})"
            raise ChannelClosed(self._broken) from None
        except GraderError as err:
            self._broken = f"your notebook could not be run again after an earlier crash: {err}"
            raise ChannelClosed(self._broken) from None
        return worker

    def _guard(self, name: str, action: Callable[[LearnerProcess, float], Any], lends: bool = False) -> Any:
        """``action(worker, deadline)``, timed against the notebook's budget for calls (``TimeBudget.calls``):
        its deadline is the sooner of ``call_timeout`` and what is left of that budget; once the budget is spent,
        every call fails at once. What a call that stopped the worker costs the next one is drawn from the same
        budget: the worker's restart (:meth:`_again`) and, with ``lends``, the lender's worker started again."""
        if self.fault is not None:  # the notebook will not be graded: spend no more time on it
            raise ChannelClosed(self.fault)
        self._clock.allowed()  # spent: fail at once, before anything is started again
        if lends and self._lender is not None:
            self._lender_ready()
        worker = self._live()
        seconds, limited = self._clock.allowed()  # limited: this call's deadline is the budget's end
        started, noted = time.monotonic(), False
        try:
            return action(worker, started + seconds)
        except ChannelError as err:
            ended = worker.ended() if type(err) is ChannelClosed else None  # before close(): the worker's own status
            worker.close()  # a hung or dead worker is replaced on the next call
            self._worker = None
            if isinstance(err, ChannelTimeout) and limited:
                self._clock.took(name, time.monotonic() - started)
                noted = True
                raise self._clock.spent() from None
            if ended is not None:
                raise WorkerEnded(f"{ended[0]}. {ended[1]}") from None
            raise
        finally:
            if not noted:
                self._clock.took(name, time.monotonic() - started)

    def _lender_ready(self) -> None:
        """The lender's worker, ready before the call's clock starts. Its first start for this notebook is the
        machine's time; a later one (a call's arguments killed it) is this notebook's, drawn from its budget."""
        assert self._lender is not None
        again = self._lender_started and not self._lender.warm
        started = time.monotonic()
        try:
            self._lender.ready()
        finally:
            self._lender_started = True
            if again:
                self._clock.restarted(time.monotonic() - started)

    @property
    def fault(self) -> str | None:
        """Why some call failed through the grading machine's fault, not the learner's (a worker or the lender's
        worker that did not start): then no outcome of this notebook is evidence, and it is not graded."""
        return self._fault or (self._lender.fault if self._lender is not None else None)

    def reached(self, name: str) -> frozenset[str] | None:
        """What the notebook's code of ``name`` can look up (:mod:`grader.execute.reach`), read once from the cells
        it ran."""
        if self._reach is None:
            self._reach = reach_of([c.source for c in self._submission.cells if not c.skip])
        return self._reach(name)

    def lent(self, name: str) -> Callable[..., Any] | None:
        """The solution's function ``name``, run in the lender's worker (so its cost is bounded), to lend."""
        return None if self._lender is None else self._lender.function(name)

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        return self._guard(  # type: ignore[no-any-return]
            name, lambda w, due: w.call(name, args, kwargs, swaps, due), lends=bool(swaps)
        )

    def value(self, name: str) -> Any:
        return self._guard(name, lambda w, due: w.value(name, due))

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
