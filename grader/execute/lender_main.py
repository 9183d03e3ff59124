"""The program of a lender's worker (:mod:`grader.execute.lender`): the lesson's solution, answering lent calls.

It runs in the same sandbox, under the same limits, as a learner's worker, and speaks the same channel, but it
runs no learner code: only the solution notebook's cells, and the calls the grader relays to its functions. Two
things differ from :mod:`grader.execute.worker_main`, each for a reason:

- **No IPython.** The cells run with ``exec`` in one plain namespace, as the trusted reference runs them in the
  grading process (:func:`grader.suites.reference.solution_namespace`), so a lent function behaves exactly as
  the reference the suites compare against; and a process that never imports IPython boots in a fifth of the
  CPU time (bench/RESULTS.md, round 8).
- **A fresh process per learner.** Once the solution has run, this process only forks: each child answers the
  calls of one learner, and the grader's ``fresh`` message (:data:`protocol.FRESH`) ends it, so that the next
  learner is served by a new child of the untouched state. Whatever one learner's arguments did in a child (a
  solution's cache filled, a global changed, CPU seconds counted against its limit) is gone before the next
  learner's first call. A child that dies for any other reason takes this process with it, so the grader sees
  the channel close at once, as it would for a spawned worker.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from grader.execute import protocol as wire
from grader.execute.worker_main import Worker, _short, leave_root

AGAIN = 3
"""A child's exit status that means: the grader asked for a fresh one."""


class SolutionWorker(Worker):
    """The solution's namespace, run as the reference is, answering the grader's calls against it."""

    def __init__(self, rfd: int, wfd: int) -> None:
        super().__init__(rfd, wfd)
        self._namespace: dict[str, Any] = {"__name__": "reference"}

    @property
    def namespace(self) -> dict[str, Any]:
        return self._namespace

    def run_cells(self, cells: list[wire.CellSource]) -> list[wire.CellRaised]:
        errors: list[wire.CellRaised] = []
        for cell in cells:
            self.endpoint.send(wire.CellStarted(t=wire.CELL, index=cell["index"]))
            try:
                exec(compile(cell["source"], f"solution[cell {cell['index'] + 1}]", "exec"), self._namespace)
            except Exception as err:  # reported: the grader says the solution cannot be lent
                errors.append(wire.CellRaised(index=cell["index"], ename=type(err).__name__, evalue=_short(err)))
        return errors


def serve(rfd: int, wfd: int) -> None:
    """Say ready, run the solution's cells, then serve one learner per forked child until the grader hangs up."""
    worker = SolutionWorker(rfd, wfd)
    worker.endpoint.send(wire.Ready(t=wire.READY))
    start = worker.endpoint.receive()
    errors = worker.run_cells(start.get("cells", []))
    worker.endpoint.send(wire.executed(errors))
    announce = False
    while True:
        sys.stdout.flush()
        sys.stderr.flush()
        child = os.fork()
        if child == 0:
            _serve_one_learner(worker, announce)
        _, status = os.waitpid(child, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != AGAIN:
            os._exit(code if code >= 0 else 128 - code)  # the grader hung up, or the child died: so do we
        announce = True


def _serve_one_learner(worker: SolutionWorker, announce: bool) -> None:
    """In a child: answer calls until the grader asks for a fresh child (exit :data:`AGAIN`) or hangs up."""
    code = 0
    try:
        if announce:
            worker.endpoint.send(wire.Ready(t=wire.READY))
        while True:
            try:
                message = worker.endpoint.receive()
            except BaseException:
                return
            if message.get(wire.TYPE) == wire.FRESH:
                code = AGAIN
                return
            worker.endpoint.answer(message)
    finally:
        os._exit(code)


def main() -> None:
    leave_root()
    rfd, wfd = int(sys.argv[-2]), int(sys.argv[-1])  # the channel's pipe ends, passed by the grader
    del sys.argv[1:]
    serve(rfd, wfd)


if __name__ == "__main__":
    main()
