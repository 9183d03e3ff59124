"""A warm worker factory for long-lived graders: fork each learner's worker from a sandboxed zygote.

Spawning a worker costs a new interpreter that imports the worker's code (and IPython's shell, for a notebook that
needs it: :mod:`grader.execute.cells`). A :class:`Zygote` pays that once: it starts ``zygote_main`` under exactly
the sandbox a spawned worker gets (bubblewrap: no network, read-only system, lessons and solutions masked, scrubbed
environment, resource limits), and asks it to fork one child per learner. What separates one learner from the next,
given that they share the zygote's sandbox, is in SECURITY.md; in short, learners never overlap (one child at a
time per zygote), each child gets its own session, working directory and, when the grader is root, drops to an
unprivileged uid the zygote does not share, and works in a folder of its own in the sandbox's ``/tmp`` (a tmpfs of
``Limits.tmpfs_mb``, so what it writes is bounded, as a spawned worker's is), and after each learner the zygote kills
every process the learner left and empties ``/tmp``, ``/dev/shm``, System V IPC and the learner's directory.

Learners' directories are made here, by the grader, with names nobody can predict (``tempfile.mkdtemp``), in
the zygote's root folder, which belongs to the grader: when the grader is root, learner code can neither
write to it nor list it, so it cannot squat a later learner's folder; and after each learner every entry of
the root is deleted, whatever its permissions.

Only the bubblewrap level forks (:func:`Zygote.start` returns None otherwise): at the process level there
is no namespace of the zygote's own to sweep. A zygote that died (a learner can kill it when the grader is
not root) is started again on the next fork; if that fails the caller spawns instead.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from grader.config import END_WAIT_SECONDS, ZYGOTE_ANSWER_SECONDS, ZYGOTE_FORKS, Limits, WorkerMode
from grader.execute import protocol as wire
from grader.execute.levels import DROP_NONE
from grader.execute.limits import end_worker, preexec, remove_stale, remove_tree, worker_uid
from grader.execute.process import Kept
from grader.execute.sandbox import choose_level, launch, worker_start

ROOT_PREFIX = "grader-zygote-"
"""A zygote's root folder is ``grader-zygote-{grader's pid}-{random}``: a grader killed outright (SIGKILL) leaves
it behind, and the next zygote deletes it (:func:`remove_stale`)."""


class ZygoteUnavailable(Exception):
    """The zygote could not be started or stopped answering; spawn the worker instead."""


class Forked:
    """A :class:`grader.execute.process.WorkerOS` for a child of a zygote."""

    def __init__(self, zygote: Zygote, pid: int, workdir: Path, output: IO[bytes]) -> None:
        self._zygote, self._pid, self.workdir, self.output = zygote, pid, workdir, output
        self.isolation, self.level = zygote.isolation, zygote.level
        self._status: int | None = None
        self._ended = False

    def exit_status(self) -> int | None:
        if self._status is None and not self._ended:
            self._status = self._zygote.poll(self._pid)
        return self._status

    def end(self, hang_up: Callable[[], None]) -> None:
        hang_up()  # first: an honest worker exits by itself, and the zygote need not sweep after it
        if self._ended:
            return
        self._ended = True
        status = self._zygote.end(self._pid, self.workdir)
        if self._status is None:
            self._status = status


class Zygote:
    """One sandboxed zygote process. It serves one learner at a time: give it to one task at once."""

    def __init__(self, limits: Limits, mode: WorkerMode) -> None:
        self.limits, self.mode = limits, mode
        self._forks = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._keeper: Kept[subprocess.Popen[bytes]] | None = None
        self._killing = threading.Lock()
        """A grading thread that finds the zygote dead and a dying grader's cleanup may both end it at once."""
        remove_stale(ROOT_PREFIX)
        self.root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-"))
        """The grader's: learners' directories are made in it, and it is emptied after each learner."""
        self.isolation = self.level = ""
        self.uid: int | None = None
        self.sweeps = 0
        """How many learners' ends took a sweep (the rest exited by themselves and left nothing)."""

    @classmethod
    def start(cls, limits: Limits, mode: WorkerMode) -> Zygote | None:
        """A booted zygote, or None where workers are not forked (``GRADER_WORKERS=spawn``, not bubblewrap, a real
        kernel per notebook, or it failed to start); raises :class:`UsageError` for an unknown ``GRADER_WORKERS``."""
        if mode.kernel or worker_start() == "spawn" or not choose_level(mode)[0].zygote:
            return None
        zygote = cls(limits, mode)
        try:
            zygote._boot()
        except ZygoteUnavailable:
            zygote.close()
            return None
        return zygote

    # -- lifecycle --------------------------------------------------------------------------------------
    def _boot(self) -> None:
        """Start the zygote on a thread that lives as long as it (bwrap's --die-with-parent is per thread)."""
        try:
            self._keeper = Kept(self._spawn, "grader-zygote")
            self._proc = self._keeper.get()
        except Exception as err:
            raise ZygoteUnavailable(str(err)) from None
        try:
            self._expect("ready", self.limits.budget.boot)
        except ZygoteUnavailable:
            self._kill()
            raise

    def _spawn(self) -> subprocess.Popen[bytes]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            spec = launch(self.root, self.limits, self.mode, program="grader.execute.zygote_main")
            proc = subprocess.Popen(
                (*spec.argv, str(theirs.fileno())),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.root,
                env=spec.env,
                pass_fds=(theirs.fileno(),),
                preexec_fn=preexec(self.limits, spec),  # the root stays the grader's: no learner uid may write in it
                close_fds=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.isolation, self.level = spec.isolation, spec.level
        self.uid = None if spec.drop == DROP_NONE else worker_uid(proc.pid)
        self._control = ours
        return proc

    def _kill(self) -> None:
        with self._killing:
            proc, self._proc = self._proc, None
            control, self._control = self._control, None
        if proc is not None:
            end_worker(proc.pid, self.uid)  # the namespace's first process: takes every child with it
            try:
                proc.wait(timeout=END_WAIT_SECONDS)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        if control is not None:
            control.close()
        if self._keeper is not None:
            self._keeper.release()

    def close(self) -> None:
        self._kill()
        remove_tree(self.root)

    # -- requests ---------------------------------------------------------------------------------------
    def fork(self, rfd: int, wfd: int) -> Forked:
        """A new child that runs ``worker_main.serve`` over the channel ends ``rfd``/``wfd`` (ours stay open)."""
        if self._control is not None and self._forks >= ZYGOTE_FORKS:
            self._kill()  # a fresh one every so often: its CPU-time limit and any slow growth stay bounded
        if self._control is None:
            self._boot()  # died with an earlier learner, or retired above: start again
            self._forks = 0
        self._forks += 1
        workdir = self._new_workdir()
        out_r, out_w = os.pipe()
        try:
            self._send(wire.Fork(t=wire.FORK, workdir=str(workdir)), [rfd, wfd, out_w])
            pid = self._expect(wire.FORKED)["pid"]
        except ZygoteUnavailable:
            os.close(out_r)
            self._empty_root()
            raise
        finally:
            os.close(out_w)
        return Forked(self, int(pid), workdir, os.fdopen(out_r, "rb", buffering=0))

    def _new_workdir(self) -> Path:
        """A learner's directory, named by chance, in the grader's root; its owner is the uid the learner runs as."""
        try:
            self.root.chmod(0o711 if self.uid is not None else 0o700)  # others may only pass through, to their folder
            workdir = Path(tempfile.mkdtemp(dir=self.root))
            if self.uid is not None:
                os.chown(workdir, self.uid, self.uid)
        except OSError as err:  # never a learner's doing; should it happen, spawn this learner's worker instead
            self._kill()
            raise ZygoteUnavailable(f"no directory for the learner ({err})") from None
        return workdir

    def _empty_root(self) -> None:
        """Delete everything in the root: the last learner's directory and whatever it made there."""
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return
        for entry in entries:
            remove_tree(entry.path)

    def poll(self, pid: int) -> int | None:
        try:
            self._send(wire.Poll(t=wire.POLL, pid=pid))
            status = self._expect(wire.STATUS)["status"]
        except ZygoteUnavailable:
            return None  # the zygote and its children are gone: "it stopped answering"
        return status if status is None else int(status)

    def end(self, pid: int, workdir: Path) -> int | None:
        """Have the zygote end the learner's worker and make sure nothing of it is left, sweeping if anything is (or
        find it dead, its sandbox with it), then empty the root. The caller has hung up on the worker first."""
        try:
            self._send(wire.End(t=wire.END, pid=pid, workdir=str(workdir)))
            reply = self._expect(wire.ENDED)
            status = reply["status"]
            if reply.get("swept") is not False:
                self.sweeps += 1
        except ZygoteUnavailable:
            status = None
        finally:
            self._empty_root()
        return status if status is None else int(status)

    def _send(self, message: Mapping[str, Any], fds: list[int] | None = None) -> None:
        if self._control is None:
            raise ZygoteUnavailable("not running")
        try:
            socket.send_fds(self._control, [json.dumps(message).encode()], fds or [])
        except OSError as err:
            self._kill()
            raise ZygoteUnavailable(str(err)) from None

    def _expect(self, kind: str, seconds: float = ZYGOTE_ANSWER_SECONDS) -> dict[str, Any]:
        if self._control is None:
            raise ZygoteUnavailable("not running")
        self._control.settimeout(seconds)
        try:
            data = self._control.recv(1 << 16)
            reply = json.loads(data) if data else None
        except (OSError, ValueError) as err:
            reply, why = None, str(err)
        else:
            why = "it exited"
        if not isinstance(reply, dict) or reply.get(wire.TYPE) != kind:
            self._kill()
            raise ZygoteUnavailable(f"the zygote did not answer {kind!r} ({why})")
        return reply
