"""The zygote: a sandboxed parent that has imported the worker's code once and forks one worker per learner.

It runs inside the same bubblewrap sandbox a spawned worker gets (see :mod:`grader.execute.zygote` for the
grader's side and SECURITY.md for the argument). It never runs learner code itself: it makes one pristine
namespace (:class:`grader.execute.cells.PlainShell`: IPython is not imported until a cell needs it), then
serves requests from the grader over a control socket, one learner at a time:

``fork`` (with the channel's two pipe ends and an output pipe as file descriptors)
    fork a child that keeps only those descriptors, starts its own session, moves into the folder the grader
    made for the learner, leaves root for that folder's owner, makes its working folder in the sandbox's own
    ``/tmp`` (:func:`worker_main.enter_own_folder`) and runs :func:`worker_main.serve` there with the inherited
    shell. Replies with the child's pid (in the sandbox's pid namespace).
``poll``
    the child's exit status, if it has exited (Popen's convention: negative is a signal).
``end`` (sent once the grader has closed its ends of the child's channel)
    make sure nothing of the learner is left, so the next learner finds the sandbox as the zygote left it:
    empty but for the folders leading to the sandbox's mounts. First the zygote waits, briefly, for the child
    to exit by itself (an honest worker does once the grader hangs up) and reaps it; then it looks, without
    changing anything: no other process in the sandbox (a scan of ``/proc`` that no fork or thread raced),
    ``/tmp`` and ``/dev/shm`` empty and with their modes, no System V IPC object, and the kernel holding no
    more sockets or tmpfs space for the sandbox than before the first learner. Only when the child did not
    exit or something is left does it sweep: a process forked for it that becomes the learner's uid kills
    every other process in the sandbox, deletes what was written to ``/tmp``, ``/dev/shm`` and the learner's
    directory (whatever permissions it was left with), and removes System V IPC objects; then the zygote reaps
    every exited child of its own and waits, briefly, for the kernel to let go of what the learner held. A
    sweep that cannot make the sandbox so, or a kernel that does not let go, ends the zygote, and its sandbox
    with it (fail-safe).
    Replies with the child's exit status and whether it swept. (The learner's directory is the grader's to
    delete afterwards, whichever way: it lives in the grader's root folder, which the grader empties.)

It never builds IPython's shell: a child whose cells need it builds its own, so what one learner's cells need never
changes what the next learner's run in (the recursion limit, IPython's names in the builtins).

The zygote itself leaves nothing in its ``/tmp``: the home it makes its namespace in is deleted before it says
``ready``.

Python reseeds ``random`` in a forked child by itself; nothing else with random state (numpy) is imported
before the fork. The zygote is not dumpable (``PR_SET_DUMPABLE`` 0): a learner process running as the same uid (a
non-root grader) can neither ptrace it nor read its memory or descriptors through ``/proc``.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import select
import signal
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath
from typing import Any

from grader.config import HANG_UP_EXIT_SECONDS, SETTLE_SECONDS, SWEEP_SCAN_SECONDS
from grader.execute import protocol as wire
from grader.execute.ipc import ipc_objects_left, remove_ipc
from grader.execute.limits import live_processes, process_ids, remove_tree
from grader.execute.worker_main import enter_own_folder, leave_root, make_shell, serve

_PR_SET_DUMPABLE = 4
_WIPED = {"/tmp": 0o1777, "/dev/shm": 0o1777}
"""The sandbox's shared scratch folders and the mode bwrap gave them (a learner that owns one may change it)."""
_WAY_MODE = 0o755
"""The mode bwrap gives the folders it makes on the way to a mount."""


def _exit_code(status: int) -> int:
    return os.waitstatus_to_exitcode(status)


class ZygoteServer:
    """The zygote's side of the control socket: builds the shell once, then forks, polls and sweeps on request."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.shell = make_shell()  # made once, never used here: every child starts from this same state
        self.statuses: dict[int, int] = {}
        self.mounts, self.ways = _mounts()
        self.baseline: tuple[int, ...] = ()
        """What the kernel holds for the sandbox before any learner (:func:`_kernel_state`), taken in :meth:`loop`."""

    def reply(self, message: Mapping[str, Any]) -> None:
        self.control.send(json.dumps(message).encode())

    def loop(self) -> None:
        self.baseline = _kernel_state()  # once the home the shell was made in is gone
        self.reply(wire.Ready(t=wire.READY))
        while True:
            data, fds, _, _ = socket.recv_fds(self.control, 1 << 16, 4)
            if not data:
                return  # the grader hung up
            request = json.loads(data)
            kind = request.get(wire.TYPE)
            if kind == wire.FORK:
                self.reply(wire.Forked(t=wire.FORKED, pid=self.fork(request["workdir"], fds)))
            elif kind == wire.POLL:
                self.reply(wire.ExitStatus(t=wire.STATUS, status=self.poll(int(request["pid"]))))
            elif kind == wire.END:
                status, swept = self.end(int(request["pid"]), request["workdir"])
                self.reply(wire.Ended(t=wire.ENDED, status=status, swept=swept))
            else:
                for fd in fds:
                    os.close(fd)
                self.reply(wire.Error(t=wire.ERROR, why=f"unknown request {kind!r}"))

    def fork(self, workdir: str, fds: list[int]) -> int:
        pid = os.fork()
        if pid == 0:
            try:
                self._become_worker(workdir, fds)
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        return pid

    def _become_worker(self, workdir: str, fds: list[int]) -> None:
        """In the child, before any learner code: only its own descriptors, session, directory and uid."""
        rfd, wfd, out = fds
        os.dup2(out, 1)
        os.dup2(out, 2)
        keep = sorted({0, 1, 2, rfd, wfd})
        for low, high in zip(keep, [*keep[1:], os.sysconf("SC_OPEN_MAX")], strict=False):
            os.closerange(low + 1, high)  # the control socket and every other descriptor of the zygote
        os.setsid()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(workdir)  # the grader's folder for this learner: its owner is the uid to become
        leave_root()
        serve(rfd, wfd, self.shell, own_folder=enter_own_folder())  # as a spawned worker in a sandbox does

    def poll(self, pid: int) -> int | None:
        if pid in self.statuses:
            return self.statuses[pid]
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return self.statuses.get(pid, -signal.SIGKILL)
        if done == 0:
            return None
        self.statuses[pid] = _exit_code(status)
        return self.statuses[pid]

    def end(self, pid: int, workdir: str) -> tuple[int | None, bool]:
        """The child's exit status, once nothing of the learner is left; and whether that took a sweep.

        An honest child exits by itself once the grader hangs up, and leaves nothing: then looking is enough, and
        the sweeper is not forked (its fork, and the kill it would have done, were ~3 of a notebook's ~40 ms of
        CPU: bench/RESULTS.md, round 20). Anything else is swept (which kills the child too: the zygote may not
        signal another uid), then the child is reaped.
        """
        exited = self._exited(pid, HANG_UP_EXIT_SECONDS)
        swept = not (exited and self._nothing_left())
        if swept:
            self._sweep(workdir)
            self._reap_all()
            self._settle()
        status = self.poll(pid)
        if status is None:
            _, raw = os.waitpid(pid, 0)
            status = _exit_code(raw)
        self.statuses.pop(pid, None)
        return status, swept

    def _exited(self, pid: int, seconds: float) -> bool:
        """Whether the child has exited (and is reaped) within ``seconds``: a pidfd is readable once it has."""
        if self.poll(pid) is not None:
            return True
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # no pidfds here: the sweep decides
            return False
        try:
            select.select([pidfd], [], [], seconds)
        finally:
            os.close(pidfd)
        return self.poll(pid) is not None

    def _nothing_left(self) -> bool:
        """Whether the sandbox is as the zygote left it, once the child is reaped: looked at, never changed.

        No other process: ``/proc`` lists only the sandbox's first process and the zygote (zombies count: they
        are left for the sweep too), and the namespace's last pid, read before and after the listing, did not
        move, so no process or thread was made while it was read (a learner's process that forks and exits
        could otherwise stay one step ahead of the listing). ``/tmp`` and ``/dev/shm`` hold only the sandbox's
        own folders, with their modes. No System V IPC object (the system-call filter refuses them, where it is
        installed). The kernel's state as before the first learner (:func:`_kernel_state`). Anything else, or
        anything that cannot be read, is for the sweep.
        """
        before = _last_pid()
        others = set(process_ids()) - {1, os.getpid()}
        if others or before is None or _last_pid() != before:
            return False
        return (
            all(self._untouched(folder, mode) for folder, mode in _WIPED.items())
            and not ipc_objects_left()
            and _kernel_state() == self.baseline
        )

    def _reap_all(self) -> None:
        """Reap every child of the zygote that has exited: the worker, and any process the learner made the
        zygote's child (``clone`` with ``CLONE_PARENT``), which the sweep killed. Unreaped, each stayed a zombie
        counted against the learners' uid's process limit, so one learner's 63 zombies left the next unable to
        start a thread (and an honest learner scored 3 of 5)."""
        while True:
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.statuses[pid] = _exit_code(raw)

    def _settle(self) -> None:
        """After a sweep: wait, briefly, for the kernel to let go of what the learner's processes held (sockets
        passed inside sockets are freed by the kernel's own collector, which closing a socket prompts); if it does
        not come back to :attr:`baseline` (a TCP connection in TIME_WAIT lasts a minute), end the zygote: the
        next learner gets a new sandbox."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while _kernel_state() != self.baseline:
            if time.monotonic() > deadline:
                raise SystemExit("the learner left sockets or held files the sweep cannot end")
            ends = socket.socketpair()  # a unix socket closed prompts the kernel to collect the sockets in flight
            for end in ends:
                end.close()
            time.sleep(0.005)

    def _untouched(self, folder: str, mode: int) -> bool:
        """Whether ``folder`` has ``mode`` and holds nothing but the sandbox's mounts and the (untouched) folders
        leading to them: what :meth:`_empty` would leave it, without it doing anything."""
        try:
            if stat.S_IMODE(os.lstat(folder).st_mode) != mode:
                return False
            entries = list(os.scandir(folder))
        except OSError:
            return False
        for entry in entries:
            if entry.path in self.mounts:
                continue
            if entry.path not in self.ways or not entry.is_dir(follow_symlinks=False):
                return False
            if not self._untouched(entry.path, _WAY_MODE):
                return False
        return True

    def _sweep(self, workdir: str) -> None:
        """Kill everything the learner left running and delete what it wrote, as the learner's own uid."""
        sweeper = os.fork()
        if sweeper == 0:
            code = 1
            try:
                os.chdir(workdir)
                leave_root()
                _kill_all_but({1, os.getppid(), os.getpid()})
                swept = [self._empty(folder, mode) for folder, mode in (*_WIPED.items(), (workdir, 0o700))]
                code = 0 if all(swept) and remove_ipc() else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(sweeper, 0)
        if _exit_code(status) != 0:
            raise SystemExit("the sweep after a learner failed")  # the grader sees the zygote gone and starts another

    def _empty(self, folder: str, mode: int) -> bool:
        """Give ``folder`` its mode back and delete everything in it but the sandbox's own mounts and the folders
        leading to them, whatever permissions the learner left; True if nothing else is left."""
        try:
            os.chmod(folder, mode)
        except OSError:
            pass  # not the sweeper's (a root grader's sandbox): then the learner could not change it either
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return False
        clean = True
        for entry in entries:
            if entry.path in self.ways and entry.is_dir(follow_symlinks=False):
                clean = self._empty(entry.path, _WAY_MODE) and clean
            elif entry.path not in self.mounts:
                clean = remove_tree(entry.path) and clean
        return clean


_SOCKET_COUNTS = ("/proc/net/sockstat", "/proc/net/sockstat6")
"""Per network namespace: the sockets in use (of every kind, sockets in flight included), each protocol's, and
TCP's connections in TIME_WAIT. (Listing ``/proc/net/tcp`` instead walks the whole machine's table, ~1 ms.)"""
_MACHINE_WIDE = frozenset({b"orphan", b"alloc", b"mem", b"memory"})
"""The figures of those files that count the whole machine's sockets, not the sandbox's."""


def _kernel_state() -> tuple[int, ...]:
    """What the kernel holds for the sandbox beyond its processes and files: the sockets its network namespace
    counts (a connection in TIME_WAIT outlives its process), and the blocks and files used in ``/tmp`` and
    ``/dev/shm`` (a deleted file still open somewhere, even only inside a socket, keeps its space)."""
    counts = []
    for path in _SOCKET_COUNTS:
        try:
            with open(path, "rb") as sockstat:
                for line in sockstat.read().splitlines():
                    words = line.partition(b":")[2].split()
                    counts += [int(n) for k, n in zip(words[::2], words[1::2], strict=False) if k not in _MACHINE_WIDE]
        except (OSError, ValueError):
            counts.append(-1)
    for folder in _WIPED:
        try:
            usage = os.statvfs(folder)
        except OSError:
            counts += [-1, -1]
            continue
        counts += [usage.f_blocks - usage.f_bfree, usage.f_files - usage.f_ffree]
    return tuple(counts)


def _last_pid() -> int | None:
    """The last pid given out in this pid namespace (the last field of ``/proc/loadavg``, which reads the
    namespace of the one who reads it): it moves with every process and thread made."""
    try:
        with open("/proc/loadavg", "rb") as loadavg:
            return int(loadavg.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def _kill_all_but(spared: set[int], rounds: int = 200) -> None:
    """SIGKILL every other live process in the sandbox's pid namespace, scan after scan until none is left.

    Between scans it waits for the killed to die (a pidfd is readable once its process has exited, child or
    not), not a fixed millisecond: a learner's process takes ~1 ms to tear down, and this runs for every notebook.
    """
    for _ in range(rounds):
        alive = [pid for pid in live_processes() if pid not in spared]
        if not alive:
            return
        dying = []
        for pid in alive:
            try:
                dying.append(os.pidfd_open(pid))
            except (AttributeError, OSError):  # gone already, or no pidfds here: the next scan tells
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if dying:
            _wait_until_exited(dying)
        else:
            time.sleep(0.001)
    raise RuntimeError("learner processes kept appearing")


def _wait_until_exited(pidfds: list[int], seconds: float = SWEEP_SCAN_SECONDS) -> None:
    """Until every process of ``pidfds`` has exited (or ``seconds`` pass: the next scan looks again); closes them."""
    deadline = time.monotonic() + seconds
    pending = list(pidfds)
    try:
        while pending and (left := deadline - time.monotonic()) > 0:
            exited = select.select(pending, [], [], left)[0]
            pending = [fd for fd in pending if fd not in exited]
    finally:
        for fd in pidfds:
            os.close(fd)


def _mounts() -> tuple[frozenset[str], frozenset[str]]:
    """The sandbox's mount points (bwrap's binds: the Python installation, the grader, the zygote's root folder)
    and the folders leading to them: the structure of the sandbox, which a sweep keeps."""
    with open("/proc/self/mountinfo") as info:
        points = {re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4]) for line in info}
    ways = {str(parent) for point in points for parent in PurePosixPath(point).parents}
    return frozenset(points), frozenset(ways - points)


def in_scratch_home(build: Callable[[], object]) -> None:
    """``build()`` with a home of its own in the sandbox's private /tmp, deleted afterwards: every learner must find
    /tmp as empty as the sweep leaves it."""
    home = tempfile.mkdtemp(dir="/tmp")
    os.environ.update(HOME=home, TMPDIR=home, IPYTHONDIR=f"{home}/.ipython", MPLCONFIGDIR=f"{home}/.matplotlib")
    try:
        build()
    finally:
        remove_tree(home)
        tempfile.tempdir = None


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[-1]))
    del sys.argv[1:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    zygotes: list[ZygoteServer] = []
    in_scratch_home(lambda: zygotes.append(ZygoteServer(control)))
    zygotes[0].loop()
    os._exit(0)


if __name__ == "__main__":
    main()
