"""Operating-system limits on the worker, and ending it so that nothing it started survives.

:func:`preexec` runs in the child between fork and exec (see :mod:`grader.execute.sandbox` for the levels):
a new session, resource limits, and, when the grader runs as root, a uid of the worker's own.
:func:`end_worker` kills the worker's session, every process descended from it, every process running as
its uid, and waits until they are gone; :func:`remove_files_of` deletes what that uid left in shared
temporary folders.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import time
from pathlib import Path
from typing import Callable

from grader.config import WORKER_UID_BASE, Limits

_PR_SET_NO_NEW_PRIVS = 38
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)  # Linux; looked up here: preexec must not import


def worker_uid(pid: int) -> int:
    """The unprivileged uid (and gid) of the worker whose outermost process is ``pid``, when the grader is root."""
    return WORKER_UID_BASE + pid


def preexec(limits: Limits, workdir: Path | None = None, drop: str = "none") -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen` (runs in the child): new session, resource limits, and uid.

    ``drop`` is ``none`` (keep the grader's uid), ``exec`` (become the worker's own uid now) or ``worker``
    (give the worker its uid's working directory; the worker itself leaves root before any learner code).
    """
    mb = 1024 * 1024
    cpu = int(limits.timeout + 10 * limits.call_timeout + 30)
    target = str(workdir) if workdir is not None else None

    def apply() -> None:
        os.setsid()
        _set(resource.RLIMIT_AS, limits.memory_mb * mb)
        _set(resource.RLIMIT_CPU, cpu)
        _set(resource.RLIMIT_FSIZE, limits.max_file_mb * mb)
        _set(resource.RLIMIT_NOFILE, limits.max_open_files)
        _set(resource.RLIMIT_CORE, 0)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        if drop != "none" and target is not None:
            uid = worker_uid(os.getpid())
            os.chown(target, uid, uid)
            _set(resource.RLIMIT_NPROC, limits.max_processes)  # a fresh uid: counts only this worker's processes
            if drop == "exec":
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                if _prctl is not None:
                    _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # setuid programs cannot give root back
        elif os.getuid() != 0:  # root ignores RLIMIT_NPROC
            _set(resource.RLIMIT_NPROC, limits.max_processes + _running_processes())

    return apply


def _set(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


def _running_processes() -> int:
    """Processes this user already runs: RLIMIT_NPROC counts them too, so the budget is on top of them."""
    uid = os.getuid()
    count = 0
    try:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == uid:
                        count += 1
                except OSError:
                    continue
    except OSError:
        return 0
    return count


def kill_group(pgid: int) -> None:
    """Kill every process in the worker's session (it was made the leader of its own group)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- ending a worker: nothing left behind ----------------------------------------------------------------------
def _processes() -> dict[int, tuple[int, int]]:
    """Every live (not zombie) process's (parent pid, real uid), from /proc; empty where there is no /proc."""
    found: dict[int, tuple[int, int]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return found
    for name in entries:
        try:
            with open(f"/proc/{name}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status.read().splitlines() if b":" in line)
            if fields[b"State"].split()[0] in (b"Z", b"X"):
                continue
            found[int(name)] = (int(fields[b"PPid"]), int(fields[b"Uid"].split()[0]))
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return found


def _descendants(root_pid: int, table: dict[int, tuple[int, int]]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = list(children.get(root_pid, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def _of_uid(uid: int, table: dict[int, tuple[int, int]]) -> set[int]:
    return {pid for pid, (_, owner) in table.items() if owner == uid}


def _kill(pids: set[int]) -> list[int]:
    """SIGKILL each process through a pidfd (once open, it names that process even if its pid is reused)."""
    fds = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except (OSError, AttributeError):  # gone already, or no pidfds on this platform
            continue
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            pass
        fds.append(fd)
    return fds


def _wait_exited(fds: list[int], deadline: float) -> None:
    """Wait until every pidfd reports its process exited (a pidfd becomes readable then), or the deadline."""
    try:
        for fd in fds:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            select.select([fd], [], [], remaining)
    finally:
        for fd in fds:
            os.close(fd)


def end_worker(pid: int, uid: int | None, timeout: float = 5.0) -> None:
    """Kill the worker whose outermost process is ``pid`` and everything it started.

    The process tree is read first (once the worker dies its children are re-parented out of it); then its
    session is killed, and every descendant (under bubblewrap that includes the namespace's first process,
    which takes the whole namespace with it), waiting up to ``timeout`` until each has exited. When the
    worker has a uid of its own, every process of that uid is killed too, scan after scan until none is
    left: that catches a daemon that left both the session and the tree, and a child forked between a scan
    and a kill.
    """
    table = _processes()
    first = _descendants(pid, table) | (_of_uid(uid, table) if uid is not None else set())
    kill_group(pid)
    deadline = time.monotonic() + timeout
    _wait_exited(_kill(first), deadline)
    while uid is not None and time.monotonic() < deadline:
        left = _of_uid(uid, _processes())
        if not left:
            return
        _wait_exited(_kill(left), deadline)


def remove_files_of(uid: int, folders: tuple[str, ...] = ("/tmp", "/var/tmp", "/dev/shm")) -> None:
    """Delete what ``uid`` created directly in the shared temporary folders (the process level's leftovers)."""
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                continue
