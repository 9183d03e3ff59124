"""Step 2, execute: run a submission's cells in a separate, limited worker process.

:func:`start_worker` returns a :class:`LearnerProcess` that has run the notebook and now holds the
learner's namespace; hidden tests reach into it only through :meth:`LearnerProcess.call` and
:meth:`LearnerProcess.value`, which carry plain data. The grader's own process never runs learner code.

How the worker is isolated is :mod:`grader.execute.sandbox`'s choice (``LearnerProcess.isolation`` says
which); how it was started (spawned, or forked from a :class:`Zygote`) is its :class:`WorkerOS`'s, and
:meth:`LearnerProcess.close` leaves nothing behind either way. A spawned worker dies if the thread that started
it exits (bubblewrap's ``--die-with-parent``, or ``PR_SET_PDEATHSIG`` at the process level), so start and close a
worker in a thread that outlives it.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from grader.config import EXIT_STATUS_SECONDS, OUTPUT_DRAIN_SECONDS, Limits, WorkerMode
from grader.environment import ISOLATION_ENV
from grader.errors import ExecutionTimeout, MachineFailed, WorkerCrashed
from grader.execute import protocol as wire
from grader.execute.channel import MAX_TYPE_NAME, Endpoint, Guard
from grader.execute.process import Spawned, WorkerOS
from grader.execute.protocol import BadMessage, ChannelError, ChannelTimeout, Returned
from grader.execute.worker_main import NO_INPUT
from grader.execute.zygote import Zygote, ZygoteUnavailable
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

    def text(self, wait: float = OUTPUT_DRAIN_SECONDS) -> str:
        self._thread.join(wait)
        return self.kept.decode("utf-8", errors="replace")


class LearnerProcess:
    """A worker that has executed one notebook and answers calls against its namespace."""

    def __init__(
        self,
        submission: Submission,
        limits: Limits,
        mode: WorkerMode,
        zygote: Zygote | None = None,
        program: str | None = None,
    ) -> None:
        """``program``: spawn a new interpreter running it (a lender's worker), never forked from ``zygote``."""
        self.submission = submission
        self.limits, self.mode = limits, mode
        self.current_cell: int | None = None
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        try:
            self._os = _start(limits, mode, zygote, to_worker_r, from_worker_w, program)
        except BaseException:
            for fd in (to_worker_w, from_worker_r):
                os.close(fd)
            raise
        finally:
            os.close(to_worker_r)
            os.close(from_worker_w)
        self.isolation, self.level = self._os.isolation, self._os.level
        self.workdir: Path = self._os.workdir
        self._output = _OutputCap(self._os.output, limits.output_kb * 1024)
        self._endpoint = Endpoint(
            from_worker_r, to_worker_w, self._notice, max_bytes=limits.max_message_kb * 1024, guard=guard(limits)
        )
        self._fds = (from_worker_r, to_worker_w)
        self._spawned = time.monotonic()
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------------
    def run_notebook(self, until: float | None = None) -> Execution:
        """Run every non-self-check cell; raise :class:`ExecutionTimeout` or :class:`WorkerCrashed` if it can't
        finish. ``until``: a deadline of the caller's, sooner than the notebook's own (a run again after a crash,
        within what is left of the notebook's budget); running out of it raises :class:`ChannelTimeout`."""
        cells = [wire.CellSource(index=c.index, source=c.source) for c in self.submission.cells if not c.skip]
        too_large = _code_too_large(cells)
        if too_large is not None:
            self.close()
            raise WorkerCrashed(too_large)
        self._wait_until_ready()
        started = time.monotonic()  # the notebook's clock starts once the worker has booted
        deadline = started + self.limits.budget.notebook
        cut = until is not None and until < deadline
        deadline = min(deadline, until) if until is not None else deadline
        try:
            self._endpoint.send(wire.Run(t=wire.RUN, cells=cells), deadline)
            while True:
                message = self._endpoint.receive(deadline)
                if message[wire.TYPE] == wire.EXECUTED:
                    break
                self._notice(message)
        except ChannelTimeout:
            self.close()
            if cut:
                raise ChannelTimeout("the caller's time ran out while the notebook ran") from None
            raise ExecutionTimeout(self._timeout_sentence()) from None
        except BadMessage as err:
            self.close()
            raise WorkerCrashed(
                f"Your notebook sent the grader something it cannot read ({err}) {self._where()}. "
                "Do not write to files or pipes your code did not open, then run the notebook again."
            ) from None
        except ChannelError:
            raise self._crashed() from None
        errors = tuple(self._cell_error(e) for e in message.get("errors", []) if isinstance(e, dict))
        more = message.get("more", 0)
        return Execution(
            cell_errors=errors,
            more_cell_errors=more if type(more) is int and more > 0 else 0,
            isolation=self.isolation,
            seconds=time.monotonic() - started,
        )

    def _wait_until_ready(self) -> None:
        """Wait for the worker to finish starting (importing its code); no learner code has run yet."""
        try:
            while self._endpoint.receive(self._spawned + self.limits.budget.boot)[wire.TYPE] != wire.READY:
                pass
        except ChannelTimeout:
            self.close()
            if time.monotonic() < self._spawned + self.limits.budget.boot:
                # A lender's worker started inside a learner call (its last one was killed by that call's own
                # arguments) waits within that call's deadline: the call's time is spent, not the machine's budget.
                raise ChannelTimeout("the learner call's time ran out while the grader's worker started") from None
            raise MachineFailed(
                f"The grader's worker did not start within {self.limits.budget.boot:g} s: the grading machine is "
                "overloaded, not your notebook. Grade it again later."
            ) from None
        except ChannelError:
            self._wait_for_exit()
            what, _ = exit_reason(self._exit_status(), self.limits)
            said = next(iter(self.output()[0].strip().splitlines()[-1:]), "no output")
            self.close()
            raise MachineFailed(
                f"The grader's worker stopped before running your notebook ({what}; it said: {said[:200]}). This is a "
                f"problem with the grading machine, not your notebook: tell your instructor ({ISOLATION_ENV}=process "
                "avoids bubblewrap, if that is what failed)."
            ) from None

    def close(self) -> None:
        """Kill the worker and everything it started, then delete its working directory and temporary files."""
        if self._closed:
            return
        self._closed = True
        self._os.end(self._hang_up)

    def _hang_up(self) -> None:
        """Close the grader's ends of the channel: an honest worker that reads the end of it exits."""
        for fd in self._fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def output(self) -> tuple[str, bool]:
        """What the learner's code printed (capped), and whether some was thrown away."""
        return self._output.text(), self._output.truncated

    def __enter__(self) -> LearnerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls from hidden tests -------------------------------------------------------------------------
    def call(
        self,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        swaps: dict[str, Callable[..., Any]],
        deadline: float | None = None,
    ) -> Returned:
        """Call the learner's function ``name`` (``swaps`` stand in for other lesson functions meanwhile).

        Returns the value, which arguments the call modified in place and whether the result is an object the
        caller already held (see ``calls.changed_arguments`` and ``calls.ResultIdentity``). ``deadline``: when
        the call must have answered (None: ``call_timeout`` from now).
        """
        message = wire.CallByName(t=wire.CALL, name=name, args=args, kwargs=kwargs, swap=swaps)
        reply = self._endpoint.request(message, deadline or time.monotonic() + self.limits.budget.call)
        changed = reply.get("changed") if isinstance(reply, dict) else None
        same_as = reply.get("same_as") if isinstance(reply, dict) else None
        if not (
            isinstance(reply, dict)
            and "value" in reply
            and isinstance(changed, list)
            and all(type(c) is str for c in changed)
            and (same_as is None or type(same_as) is str)
        ):
            raise BadMessage("a reply to a call that is not {value, changed, same_as}")
        return Returned(reply["value"], tuple(changed), same_as and same_as[:MAX_TYPE_NAME])

    def value(self, name: str, deadline: float | None = None) -> Any:
        deadline = deadline or time.monotonic() + self.limits.budget.call
        return self._endpoint.request(wire.Get(t=wire.GET, name=name), deadline)

    @property
    def forked(self) -> bool:
        """Whether it was forked from a zygote (else spawned as a new interpreter)."""
        return not isinstance(self._os, Spawned)

    def renew(self) -> None:
        """A lender's worker (:mod:`grader.execute.lender_main`) only: serve from now on from a fresh copy of the
        state its notebook left, within one call's time; raises :class:`ChannelError` if it does not answer."""
        deadline = time.monotonic() + self.limits.budget.call
        self._endpoint.send(wire.Fresh(t=wire.FRESH), deadline)
        while self._endpoint.receive(deadline)[wire.TYPE] != wire.READY:
            pass

    @property
    def alive(self) -> bool:
        return not self._closed and self._exit_status() is None

    def _exit_status(self) -> int | None:
        return self._os.exit_status()

    # -- messages --------------------------------------------------------------------------------------
    def _notice(self, message: dict[str, Any]) -> None:
        if message.get(wire.TYPE) == wire.CELL and type(message.get("index")) is int:
            self.current_cell = message["index"]

    def _cell(self, index: int | None) -> Cell | None:
        return next((c for c in self.submission.cells if c.index == index), None)

    def _cell_error(self, raw: dict[str, Any]) -> CellError:
        index: int = raw["index"] if type(raw.get("index")) is int else -1
        cell = self._cell(index)
        ename, evalue = str(raw.get("ename", "Error"))[:100], str(raw.get("evalue", ""))[:300]
        if ename == "MemoryError":
            evalue = (
                f"it needed more than the {self.limits.memory_mb} MB of memory a notebook may use; "
                "use smaller data there"
            )
        elif ename == "StdinNotImplementedError":  # how a real kernel (--kernel) refuses input()
            evalue = NO_INPUT
        elif ename == "SystemExit":
            evalue = f"{evalue or 'exit()'}; exit() and sys.exit() do not stop grading, so remove them"
        else:
            evalue += next(
                (f": {why}" for code, why in self._limit_errors().items() if evalue.startswith(f"[Errno {code}]")), ""
            )
        return CellError(index=index, ename=ename, evalue=evalue, preview=preview(cell.source) if cell else "")

    def _limit_errors(self) -> dict[int, str]:
        """The limit behind an operating-system error a cell may raise, said for the learner."""
        return {
            errno.EFBIG: f"a notebook may write files of up to {self.limits.max_file_mb} MB",
            errno.EMFILE: f"a notebook may have {self.limits.max_open_files} files open at once",
            errno.EAGAIN: f"a notebook may run {self.limits.max_processes} processes and threads at once",
            errno.ENOSYS: (
                "shared memory, message queues and keyrings between processes (System V IPC, memfd, the kernel's "
                "keys) are turned off while grading"
            ),
        }

    def _where(self, prefer_loop: bool = False) -> str:
        cell = self._cell(self.current_cell)
        if cell is None:
            return "before any cell started"
        number = next(n for n, c in enumerate(self.submission.cells, start=1) if c is cell)  # [n] in JupyterLab
        return f"in cell {number}: `{preview(cell.source, prefer_loop=prefer_loop)}`"

    def _timeout_sentence(self) -> str:
        return (
            f"Your notebook ran longer than {self.limits.budget.notebook:g} s and was stopped "
            f"{self._where(prefer_loop=True)}. "
            "Look there for a loop that never ends or a very long computation, then run the notebook again."
        )

    def ended(self) -> tuple[str, str] | None:
        """How the worker ended after its channel closed (:func:`exit_reason`), or None if it has not (the channel
        closed for another reason). Ask before :meth:`close`, whose kill would be the status seen."""
        self._wait_for_exit()
        code = self._exit_status()
        return None if code is None else exit_reason(code, self.limits)

    def _crashed(self) -> WorkerCrashed:
        sentence = self._crash_sentence()  # before close(): the worker's own exit status, not our SIGKILL
        self.close()
        return WorkerCrashed(sentence)

    def _crash_sentence(self) -> str:
        self._wait_for_exit()
        what, advice = exit_reason(self._exit_status(), self.limits)
        return f"The process running your notebook stopped ({what}) {self._where()}. {advice}"

    def _wait_for_exit(self, seconds: float = EXIT_STATUS_SECONDS) -> None:
        """The channel closes as the worker dies; give its exit status a moment to arrive."""
        deadline = time.monotonic() + seconds
        while self._exit_status() is None and time.monotonic() < deadline:
            time.sleep(0.01)


_EXIT_ADVICE = "Look there for exit(), os._exit() or code that ends Python, then run the notebook again."
_CRASH_ADVICE = "Look there for ctypes or a C extension given bad input, then run the notebook again."


def exit_reason(code: int | None, limits: Limits) -> tuple[str, str]:
    """What happened to the worker, and what the learner can do about it."""
    memory = f"Use less memory there (a notebook may use {limits.memory_mb} MB), then run the notebook again."
    if code is None:
        return "it stopped answering", _EXIT_ADVICE
    if code >= 0:
        return f"it exited with status {code}", _EXIT_ADVICE
    try:
        sig = signal.Signals(-code)
    except ValueError:
        return f"it was killed by signal {-code}", _EXIT_ADVICE
    reasons = {
        signal.SIGSEGV: ("it crashed Python with a segmentation fault (SIGSEGV)", _CRASH_ADVICE),
        signal.SIGBUS: ("it crashed Python with a bus error (SIGBUS)", _CRASH_ADVICE),
        signal.SIGFPE: ("it crashed Python with an arithmetic fault (SIGFPE)", _CRASH_ADVICE),
        signal.SIGILL: ("it crashed Python with an illegal instruction (SIGILL)", _CRASH_ADVICE),
        signal.SIGABRT: ("it aborted (SIGABRT), often because a library ran out of memory", memory),
        signal.SIGKILL: ("it was killed (SIGKILL), usually because it used too much memory", memory),
        signal.SIGXCPU: (
            f"it ran out of CPU time (SIGXCPU: the notebook and the hidden tests' calls may use "
            f"{limits.budget.cpu_seconds} s of processor time together)",
            "Look there for a loop that never ends, then run the notebook again.",
        ),
        signal.SIGXFSZ: (
            f"it wrote a file larger than {limits.max_file_mb} MB (SIGXFSZ)",
            "Write smaller files there, then run the notebook again.",
        ),
    }
    return reasons.get(sig, (f"it was killed by signal {sig.name}", _EXIT_ADVICE))


def preview(source: str, width: int = 60, prefer_loop: bool = False) -> str:
    """One line of a cell, shortened: enough for a learner to find the cell.

    The first non-blank line; with ``prefer_loop`` (for a timeout) the first ``while``/``for`` line if the
    cell has one, since that is most often what never ended.
    """
    lines = [ln.strip() for ln in source.splitlines() if ln.strip()]
    loops = [ln for ln in lines if ln.startswith(("while ", "while(", "for "))] if prefer_loop else []
    line = (loops or lines or [""])[0]
    return line if len(line) <= width else line[: width - 3] + "..."


def guard(limits: Limits) -> Guard:
    """What the grader's end of the channel allows a learner's worker (SECURITY.md, "The trusted side of the
    channel")."""
    return Guard(
        timeout=limits.budget.call,
        max_call_depth=limits.max_call_depth,
        max_items=limits.max_message_items,
        max_refs=limits.max_message_functions,
        max_chars=limits.max_text_chars,
    )


def _start(
    limits: Limits, mode: WorkerMode, zygote: Zygote | None, rfd: int, wfd: int, program: str | None
) -> WorkerOS:
    """Fork from the zygote when there is one that answers; otherwise (for a real kernel, and for a ``program`` of
    its own) spawn a new interpreter."""
    if zygote is not None and not mode.kernel and program is None:
        try:
            return zygote.fork(rfd, wfd)
        except ZygoteUnavailable:
            pass
    return Spawned(limits, mode, rfd, wfd, program)


def start_worker(
    submission: Submission, limits: Limits, mode: WorkerMode, zygote: Zygote | None = None
) -> tuple[LearnerProcess, Execution]:
    """Start a worker and run the notebook in it. The caller owns the worker and must close it."""
    worker = LearnerProcess(submission, limits, mode, zygote)
    execution = worker.run_notebook()
    return worker, execution


def _code_too_large(cells: list[wire.CellSource]) -> str | None:
    """Why the notebook's code is not sent to its worker: more than the worker reads in one message, once encoded
    (each character at most 12 bytes of JSON, so a precise count is needed only near the bound); None if it fits."""
    if 12 * sum(len(c["source"]) for c in cells) + 64 * len(cells) < wire.MAX_RUN_BYTES:
        return None
    size = len(json.dumps(wire.Run(t=wire.RUN, cells=cells), separators=(",", ":"))) + 1
    if size <= wire.MAX_RUN_BYTES:
        return None
    return (
        f"Your notebook's code cells hold {size / 2**20:.0f} MB of text, more than the {wire.MAX_RUN_BYTES >> 20} MB "
        "a notebook's code may be, so none of it was run: keep large data out of code cells (read it from a file, "
        "or leave it out of the notebook), then hand it in again."
    )
