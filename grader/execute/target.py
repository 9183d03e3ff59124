"""The bridge from hidden tests to a learner's worker: calls, values, and a restart after a crash.

If one call hangs or kills the worker, only that test fails: the next call starts a fresh worker and runs
the notebook again. If the notebook itself cannot be run again, every later call fails with that reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.config import Limits, WorkerMode
from grader.errors import GraderError
from grader.execute.lender import Lender
from grader.execute.protocol import ChannelClosed, ChannelError, Returned
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

    def _live(self) -> LearnerProcess:
        if self._broken is not None:
            raise ChannelClosed(self._broken)
        if self._worker is None:
            worker = LearnerProcess(self._submission, self._limits, self._mode, self._zygote)
            try:
                worker.run_notebook()
            except GraderError as err:
                self._broken = f"your notebook could not be run again after an earlier crash: {err}"
                raise ChannelClosed(self._broken) from None
            self._worker = worker
        return self._worker

    def _guard(self, action: Callable[[LearnerProcess], Any]) -> Any:
        worker = self._live()
        try:
            return action(worker)
        except ChannelError:
            worker.close()  # a hung or dead worker is replaced on the next call
            self._worker = None
            raise

    def lent(self, name: str) -> Callable[..., Any] | None:
        """The solution's function ``name``, run in the lender's worker (so its cost is bounded), to lend."""
        return None if self._lender is None else self._lender.function(name)

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        if swaps and self._lender is not None:
            self._lender.ready()  # booted before the call's clock starts, not on its time
        return self._guard(lambda w: w.call(name, args, kwargs, swaps))  # type: ignore[no-any-return]

    def value(self, name: str) -> Any:
        return self._guard(lambda w: w.value(name))

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
