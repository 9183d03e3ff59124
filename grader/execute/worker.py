"""Step 2, execute: run a submission's cells in a separate, limited worker process.

:func:`start_worker` returns a :class:`LearnerProcess` that has run the notebook and now holds the
learner's namespace; hidden tests reach into it only through :meth:`LearnerProcess.call` and
:meth:`LearnerProcess.value`, which carry plain data. The grader's own process never runs learner code.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, Callable

from grader.config import Limits
from grader.errors import ExecutionTimeout, WorkerCrashed
from grader.execute.channel import ChannelClosed, ChannelError, ChannelTimeout, Endpoint
from grader.execute.limits import kill_group, preexec
from grader.execute.sandbox import launch
from grader.model import Cell, CellError, Execution, Submission


class _OutputCap:
    """Drains the worker's stdout/stderr in a thread, keeping only the first ``limit`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.kept = bytearray()
        self.truncated = False
        self._limit = limit
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        while chunk := stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16):
            room = self._limit - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            if len(chunk) > room:
                self.truncated = True

    def text(self, wait: float = 0.5) -> str:
        self._thread.join(wait)
        return self.kept.decode("utf-8", errors="replace")


class LearnerProcess:
    """A worker that has executed one notebook and answers calls against its namespace."""

    def __init__(self, submission: Submission, limits: Limits) -> None:
        self.submission = submission
        self.limits = limits
        self.workdir = Path(tempfile.mkdtemp(prefix="grader-worker-"))
        self.current_cell: int | None = None
        spec = launch(self.workdir)
        self.isolation = spec.isolation
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        try:
            self._proc = subprocess.Popen(
                (*spec.argv, str(to_worker_r), str(from_worker_w)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                env=spec.env,
                pass_fds=(to_worker_r, from_worker_w),
                preexec_fn=preexec(limits),
                close_fds=True,
            )
        finally:
            os.close(to_worker_r)
            os.close(from_worker_w)
        self._output = _OutputCap(self._proc.stdout, limits.output_kb * 1024)  # type: ignore[arg-type]
        self._endpoint = Endpoint(from_worker_r, to_worker_w, self._notice, max_bytes=limits.max_message_kb * 1024)
        self._fds = (from_worker_r, to_worker_w)
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------------
    def run_notebook(self) -> Execution:
        """Run every non-self-check cell; raise :class:`ExecutionTimeout` or :class:`WorkerCrashed` if it can't finish."""
        started = time.monotonic()
        cells = [{"index": c.index, "source": c.source} for c in self.submission.cells if not c.skip]
        deadline = started + self.limits.timeout
        try:
            self._endpoint.send({"t": "run", "cells": cells})
            while True:
                message = self._endpoint.receive(deadline)
                if message["t"] == "executed":
                    break
                self._notice(message)
        except ChannelTimeout:
            self.close()
            raise ExecutionTimeout(self._timeout_sentence(), self.current_cell) from None
        except ChannelError as err:
            self.close()
            raise WorkerCrashed(self._crash_sentence(str(err))) from None
        errors = tuple(self._cell_error(e) for e in message.get("errors", []) if isinstance(e, dict))
        return Execution(
            cell_errors=errors,
            isolation=self.isolation,
            seconds=time.monotonic() - started,
        )

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        kill_group(self._proc.pid)
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not wait on the child
            pass
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.workdir, ignore_errors=True)

    def output(self) -> tuple[str, bool]:
        """What the learner's code printed (capped), and whether some was thrown away."""
        return self._output.text(), self._output.truncated

    def __enter__(self) -> "LearnerProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls from hidden tests -------------------------------------------------------------------------
    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]) -> Any:
        """Call the learner's function ``name``; other lesson functions named in ``swaps`` are stood in for."""
        message = {
            "t": "call",
            "name": name,
            "args": args,
            "kwargs": kwargs,
            "swap": {k: self._endpoint.encode(v) for k, v in swaps.items()},
        }
        return self._endpoint.request(message, time.monotonic() + self.limits.call_timeout)

    def value(self, name: str) -> Any:
        return self._endpoint.request({"t": "get", "name": name}, time.monotonic() + self.limits.call_timeout)

    @property
    def alive(self) -> bool:
        return not self._closed and self._proc.poll() is None

    def exit_description(self) -> str:
        code = self._proc.poll()
        if code is None:
            return "it stopped answering"
        if code < 0:
            try:
                return f"it was killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"it was killed by signal {-code}"
        return f"it exited with status {code}"

    # -- messages --------------------------------------------------------------------------------------
    def _notice(self, message: dict[str, Any]) -> None:
        if message.get("t") == "cell" and type(message.get("index")) is int:
            self.current_cell = message["index"]

    def _cell(self, index: int | None) -> Cell | None:
        return next((c for c in self.submission.cells if c.index == index), None)

    def _cell_error(self, raw: dict[str, Any]) -> CellError:
        index = raw.get("index") if type(raw.get("index")) is int else -1
        cell = self._cell(index)
        return CellError(
            index=index,
            ename=str(raw.get("ename", "Error"))[:100],
            evalue=str(raw.get("evalue", ""))[:300],
            preview=preview(cell.source) if cell else "",
        )

    def _where(self) -> str:
        cell = self._cell(self.current_cell)
        if cell is None:
            return "before any cell started"
        return f"in cell {cell.index + 1}: `{preview(cell.source)}`"

    def _timeout_sentence(self) -> str:
        return (
            f"Your notebook ran longer than {self.limits.timeout:g} s and was stopped {self._where()}. "
            "Look there for a loop that never ends or a very long computation, then run the notebook again."
        )

    def _crash_sentence(self, detail: str) -> str:
        try:
            self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        return (
            f"The process running your notebook stopped ({self.exit_description()}) {self._where()}. "
            "Check that cell for exit(), os._exit(), very large memory use or code that crashes Python."
        )


def preview(source: str, width: int = 60) -> str:
    """The first non-blank line of a cell, shortened: enough for a learner to find the cell."""
    line = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")
    return line if len(line) <= width else line[: width - 3] + "..."


def start_worker(submission: Submission, limits: Limits) -> tuple[LearnerProcess, Execution]:
    """Start a worker and run the notebook in it. The caller owns the worker and must close it."""
    worker = LearnerProcess(submission, limits)
    execution = worker.run_notebook()
    return worker, execution
