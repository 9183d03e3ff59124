"""The operating-system side of one worker: how it was started, its exit status, and ending it.

A :class:`LearnerProcess` talks to its worker over the channel and does not care how the worker came to
be. Two ways exist, both behind :class:`WorkerOS`:

- :class:`Spawned`: a fresh ``python -I`` under the sandbox launcher (:mod:`grader.execute.sandbox`), one
  per learner. Works at every isolation level.
- ``Forked`` (:mod:`grader.execute.zygote`): a child of a warm, sandboxed zygote, one per learner; used by
  long-lived graders at the bubblewrap level, where it saves starting an interpreter for every notebook.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Generic, Protocol, TypeVar, cast

from grader.config import END_WAIT_SECONDS, Limits, WorkerMode
from grader.execute.ipc import remove_ipc
from grader.execute.levels import DROP_NONE
from grader.execute.limits import end_worker, preexec, remove_files_of, remove_stale, remove_tree, worker_uid
from grader.execute.sandbox import LEVELS, launch

T = TypeVar("T")


class Kept(Generic[T]):
    """What ``start()`` makes, made on a thread of its own (``name``) that lives until :meth:`release`.

    A spawned process dies when the *thread* that started it exits (bwrap's ``--die-with-parent`` and
    ``PR_SET_PDEATHSIG`` are per thread), so whatever outlives the call that starts it is started so: the zygote,
    the lender's worker, which the daemon keeps warm while each ``grade`` is served on a thread that ends with
    it (started on that thread, the lender's worker was killed at the end of every request and spawned again),
    and a cold grade's workers, started while its own thread imports pytest (:meth:`Workers.boot
    <grader.execute.runner.Workers.boot>`). Whoever ends what was made releases the thread, after ending it.
    """

    def __init__(self, start: Callable[[], T], name: str) -> None:
        self._outcome: T | BaseException | None = None
        self._done = threading.Event()
        """Set once ``start()`` has returned or raised, and ``_outcome`` holds which."""
        self._stop = threading.Event()
        threading.Thread(target=self._keep, args=(start,), name=name, daemon=True).start()

    def _keep(self, start: Callable[[], T]) -> None:
        try:
            self._outcome = start()
        except BaseException as err:  # noqa: BLE001 - handed to the caller, which raises it
            self._outcome = err
            self._done.set()
            return
        self._done.set()
        self._stop.wait()

    def outcome(self) -> T | BaseException:
        """What ``start()`` returned, or what it raised, once it has (waiting is interruptible, and can be done
        again: a signal's ``SystemExit`` while waiting loses nothing)."""
        self._done.wait()
        return cast("T | BaseException", self._outcome)

    def get(self) -> T:
        """What ``start()`` returned, once it has; what it raised is raised here."""
        made = self.outcome()
        if isinstance(made, BaseException):
            raise made
        return made

    def release(self) -> None:
        """Let the thread end (what it started outlives it no longer)."""
        self._stop.set()


WORKDIR_PREFIX = "grader-worker-"
"""Spawned workers' folders are ``grader-worker-{grader's pid}-{random}``: unpredictable, and removable by the
next grader (:func:`remove_stale`) if this one is killed outright."""


class WorkerOS(Protocol):
    """What a :class:`LearnerProcess` needs from the process running learner code."""

    isolation: str
    """One line for the report: the level and what it means."""
    level: str
    """``bubblewrap`` or ``process``."""
    output: IO[bytes]
    """The worker's stdout and stderr, merged."""
    workdir: Path
    """The worker's own working directory (its HOME and TMPDIR), deleted by :meth:`end`."""

    def exit_status(self) -> int | None:
        """Like ``Popen.returncode`` (negative: killed by that signal); None while it runs."""

    def end(self, hang_up: Callable[[], None]) -> None:
        """Kill the worker and everything it started; delete its working directory and temporary files.

        ``hang_up`` closes the grader's ends of the worker's channel; each way of running a worker calls it when
        it suits that way: before the end of a forked worker (which then exits by itself, if it is honest), after
        the kill of a spawned one (whose process tree names what it started only while it lives).
        """


class Spawned:
    """A worker started as a new interpreter, with the channel's pipe ends ``rfd`` and ``wfd``."""

    def __init__(self, limits: Limits, mode: WorkerMode, rfd: int, wfd: int, program: str | None = None) -> None:
        """``program``: what the new interpreter runs (:func:`grader.execute.sandbox.launch` chooses, unless given)."""
        remove_stale(WORKDIR_PREFIX)
        self.workdir = Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-"))
        try:
            spec = launch(self.workdir, limits, mode, program)
            self._proc = subprocess.Popen(
                (*spec.argv, str(rfd), str(wfd)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                env=spec.env,
                pass_fds=(rfd, wfd),
                preexec_fn=preexec(limits, spec, self.workdir),
                close_fds=True,
            )
        except BaseException:
            remove_tree(self.workdir)
            raise
        self.isolation, self.level = spec.isolation, spec.level
        self.output: IO[bytes] = self._proc.stdout  # type: ignore[assignment]
        self.uid: int | None = None if spec.drop == DROP_NONE else worker_uid(self._proc.pid)
        """The unprivileged uid learner code runs as, when the grader is root and could give it one."""

    def exit_status(self) -> int | None:
        """The exit status without reaping: the pid must stay taken until :meth:`end` has swept its uid."""
        code = self._proc.returncode
        if code is None:
            try:
                info = os.waitid(os.P_PID, self._proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self._proc.poll()
            if info is None:
                return None
            code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if LEVELS[self.level].signal_as_status and code > 128 and (code - 128) in _SIGNAL_NUMBERS:
            return 128 - code  # bwrap reports a worker killed by signal N as exit status 128 + N
        return code

    def end(self, hang_up: Callable[[], None]) -> None:
        end_worker(self._proc.pid, self.uid)  # first: while the worker lives, its process tree names what it started
        hang_up()
        try:
            self._proc.wait(timeout=END_WAIT_SECONDS)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not wait on the child
            pass
        remove_tree(self.workdir)  # read-only folders the learner left in it too
        if self.uid is not None and not LEVELS[self.level].private_tmp:  # else /tmp and IPC died with it
            remove_files_of(self.uid)
            remove_ipc(self.uid)


_SIGNAL_NUMBERS = {int(s) for s in signal.Signals}
