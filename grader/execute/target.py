"""The bridge from hidden tests to a learner's worker: calls, values, and a restart after a crash.

If one call hangs or kills the worker, only that test fails: the next call starts a fresh worker and runs
the notebook again. If the notebook itself cannot be run again, every later call fails with that reason.
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
        """The notebook's budget for the hidden tests' calls."""

    def _live(self) -> LearnerProcess:
        if self._broken is not None:
            raise ChannelClosed(self._broken)
        if self._worker is None:
            worker = LearnerProcess(self._submission, self._limits, self._mode, self._zygote)
            try:
                worker.run_notebook()
            except MachineFailed as err:  # the machine's failure: the notebook is not graded (see fault)
                self._broken = self._fault = f"the grader could not start a worker to run your notebook again ({err})"
                raise ChannelClosed(self._broken) from None
            except GraderError as err:
                self._broken = f"your notebook could not be run again after an earlier crash: {err}"
                raise ChannelClosed(self._broken) from None
            self._worker = worker
        return self._worker

    def _guard(self, name: str, action: Callable[[LearnerProcess, float], Any]) -> Any:
        """``action(worker, deadline)``, timed against the notebook's budget for calls (``TimeBudget.calls``):
        its deadline is the sooner of ``call_timeout`` and what is left of that budget; once the budget is spent,
        every call fails at once (a restart of the worker after a crash is the notebook's time, not the call's)."""
        if self.fault is not None:  # the notebook will not be graded: spend no more time on it
            raise ChannelClosed(self.fault)
        seconds, limited = self._clock.allowed()  # limited: this call's deadline is the budget's end
        worker = self._live()
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

    @property
    def fault(self) -> str | None:
        """Why some call failed through the grading machine's fault, not the learner's (a worker or the lender's
        worker that did not start): then no outcome of this notebook is evidence, and it is not graded."""
        return self._fault or (self._lender.fault if self._lender is not None else None)

    def lent(self, name: str) -> Callable[..., Any] | None:
        """The solution's function ``name``, run in the lender's worker (so its cost is bounded), to lend."""
        return None if self._lender is None else self._lender.function(name)

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        if swaps and self._lender is not None and self.fault is None:
            self._lender.ready()  # booted before the call's clock starts, not on its time
        return self._guard(name, lambda w, due: w.call(name, args, kwargs, swaps, due))  # type: ignore[no-any-return]

    def value(self, name: str) -> Any:
        return self._guard(name, lambda w, due: w.value(name, due))

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
