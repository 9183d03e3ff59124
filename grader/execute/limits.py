"""Operating-system limits on the worker, and ending it so that nothing it started survives.

:func:`preexec` runs in the child between fork and exec (see :mod:`grader.execute.sandbox` for the levels):
a new session, resource limits, the filter that refuses shared memory (:mod:`grader.execute.ipc`), and, when
the grader runs as root, a uid of the worker's own. :func:`end_worker` kills the worker's session, every
process descended from it, every process running as its uid, and waits until they are gone;
:func:`remove_files_of` deletes what that uid left in shared temporary folders, :func:`remove_tree` a folder
whatever permissions and depth a learner left it with, and :func:`remove_stale` the folders of graders that
were killed outright. Each reads which processes there are from one list, :func:`process_ids`.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import select
import signal
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grader.config import CPU_KILL_GRACE_SECONDS, END_WAIT_SECONDS, WORKER_UID_BASE, Limits
from grader.execute import ipc
from grader.execute.sandbox import Launch

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)  # Linux; looked up here: preexec must not import


def worker_uid(pid: int) -> int:
    """The unprivileged uid (and gid) of the worker whose outermost process is ``pid``, when the grader is root."""
    return WORKER_UID_BASE + pid


#: What every worker, zygote and lender's worker tells the kernel's out-of-memory killer: take me first. There is no
#: cap on a learner's memory in all (each process is capped, not their sum: SECURITY.md, "Sharing the machine"); a
#: notebook that drives the machine out of memory then loses its own processes, not the batch's, another
#: learner's (small) or the machine's other work. Raising it needs no privilege, and children inherit it.
OOM_SCORE_ADJ = 1000


def preexec(limits: Limits, launch: Launch, workdir: Path | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen` (runs in the child): new session, first in line for the
    out-of-memory killer, resource limits, the shared-memory filter, and uid.

    ``launch.drop`` is ``none`` (keep the grader's uid), ``exec`` (become the worker's own uid now) or ``worker``
    (the worker itself leaves root before any learner code); ``workdir``, if given, is handed to that uid.
    """
    mb = 1024 * 1024
    cpu = limits.budget.cpu_seconds
    target = str(workdir) if workdir is not None else None
    drop, give_deathsig = launch.drop, not launch.can.ends_with_grader
    refuse_shared_memory = ipc.refuser(launch)

    def apply() -> None:
        os.setsid()
        _first_to_go()
        _set(resource.RLIMIT_AS, limits.memory_mb * mb)
        _set(resource.RLIMIT_CPU, cpu, CPU_KILL_GRACE_SECONDS)
        _set(resource.RLIMIT_FSIZE, limits.max_file_mb * mb)
        _set(resource.RLIMIT_NOFILE, limits.max_open_files)
        _set(resource.RLIMIT_CORE, 0)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        refuse_shared_memory()
        if drop != "none":
            uid = worker_uid(os.getpid())
            if target is not None:
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
        if give_deathsig and _prctl is not None:  # after any change of uid, which clears it
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # a grader killed outright takes its worker with it

    return apply


def _first_to_go() -> None:
    """Set :data:`OOM_SCORE_ADJ` for this process (and so its children); where ``/proc`` says no, nothing changes."""
    try:
        with open("/proc/self/oom_score_adj", "w", encoding="ascii") as adj:
            adj.write(str(OOM_SCORE_ADJ))
    except OSError:
        pass


def _set(which: int, value: int, grace: int = 0) -> None:
    """Limit ``which`` to ``value``; the hard limit ``grace`` above it (RLIMIT_CPU: SIGXCPU at the soft limit says
    "out of CPU time" in the worker's exit status, where an equal hard limit is a bare SIGKILL)."""
    _, hard = resource.getrlimit(which)
    top = value + grace
    if hard != resource.RLIM_INFINITY:
        value, top = min(value, hard), min(top, hard)
    try:
        resource.setrlimit(which, (value, top))
    except (ValueError, OSError):
        pass


def _running_processes() -> int:
    """Processes this user already runs: RLIMIT_NPROC counts them too, so the budget is on top of them."""
    uid = os.getuid()
    count = 0
    for pid in process_ids():
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += 1
        except OSError:
            continue
    return count


def kill_group(pgid: int) -> None:
    """Kill every process in the worker's session (it was made the leader of its own group)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- the processes there are ----------------------------------------------------------------------------------
def process_ids() -> list[int]:
    """The pid of every process ``/proc`` lists, zombies included; empty where there is no ``/proc``.

    The one place that lists processes. Standard library only, not psutil: the zygote calls it inside the
    sandbox (through :func:`live_processes`), and :func:`preexec` in the child between fork and exec, where
    nothing may be imported.
    """
    try:
        with os.scandir("/proc") as entries:
            return [int(e.name) for e in entries if e.name.isdigit()]
    except OSError:
        return []


def live_processes() -> dict[int, tuple[int, int]]:
    """Every live process's (parent pid, real uid), from /proc; empty where there is no /proc.

    A zombie is not live, unless it has other threads: a process whose first thread ended (``pthread_exit``)
    shows as a zombie while its other threads run on, and a learner's did outlive the sweep that way.
    """
    found: dict[int, tuple[int, int]] = {}
    for pid in process_ids():
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status.read().splitlines() if b":" in line)
            if fields[b"State"].split()[0] in (b"Z", b"X") and int(fields[b"Threads"]) <= 1:
                continue
            found[pid] = (int(fields[b"PPid"]), int(fields[b"Uid"].split()[0]))
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return found


# -- ending a worker: nothing left behind ----------------------------------------------------------------------


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


def end_worker(pid: int, uid: int | None, timeout: float = END_WAIT_SECONDS) -> None:
    """Kill the worker whose outermost process is ``pid`` and everything it started.

    The process tree is read first (once the worker dies its children are re-parented out of it); then its
    session is killed, and every descendant (under bubblewrap that includes the namespace's first process,
    which takes the whole namespace with it), waiting up to ``timeout`` until each has exited. When the
    worker has a uid of its own, every process of that uid is killed too, scan after scan until none is
    left: that catches a daemon that left both the session and the tree, and a child forked between a scan
    and a kill.
    """
    table = live_processes()
    first = _descendants(pid, table) | (_of_uid(uid, table) if uid is not None else set())
    kill_group(pid)
    deadline = time.monotonic() + timeout
    _wait_exited(_kill(first), deadline)
    while uid is not None and time.monotonic() < deadline:
        left = _of_uid(uid, live_processes())
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
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    remove_tree(entry.path)
            except OSError:
                continue


def remove_tree(path: str | Path) -> bool:
    """Delete ``path`` (never following a symbolic link) whatever permissions were left on it and however deep it
    goes; True if it is gone.

    Run as its owner or as root, once no process of the learner who made it is left (so nothing can swap a
    folder for a link meanwhile): folders a learner made read-only or unreadable are opened up as they are met.
    """
    path = str(path)
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)
            return True
        os.chmod(path, 0o700)
        top = os.open(path, _DIRECTORY)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        _empty_flat(top)
        os.rmdir(path)
    except OSError:
        pass  # a mount point, or another's file in a shared folder: the caller sees what is left
    finally:
        os.close(top)
    return not os.path.lexists(path)


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_TAKEN = {errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR}


def _empty_flat(top: int) -> None:
    """Delete everything in the folder open as ``top``: each sub-folder's own sub-folders are first moved up into
    ``top`` (one rename each), so that no path ever has more than two names and nothing recurses, however deep
    the tree; a step that fails raises :class:`OSError`."""
    moved = 0
    while names := os.listdir(top):
        for name in names:
            if not _is_folder(name, top):
                os.unlink(name, dir_fd=top)
                continue
            os.chmod(name, 0o700, dir_fd=top)  # a folder, not a link (checked above)
            sub = os.open(name, _DIRECTORY, dir_fd=top)
            try:
                for child in os.listdir(sub):
                    if not _is_folder(child, sub):
                        os.unlink(child, dir_fd=sub)
                        continue
                    os.chmod(child, 0o700, dir_fd=sub)  # moving a folder to another parent writes its ".."
                    while True:
                        moved += 1
                        try:
                            os.rename(child, f".removed-{moved}", src_dir_fd=sub, dst_dir_fd=top)
                            break
                        except OSError as err:
                            if err.errno not in _TAKEN:
                                raise
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=top)


def _is_folder(name: str, folder: int) -> bool:
    return stat.S_ISDIR(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)


def remove_stale(prefix: str) -> None:
    """Delete the temp folders ``{prefix}{pid}-*`` whose grading process ``pid`` is gone.

    A grader killed outright (SIGKILL) cannot clean up; the next one to start a worker does. Only real folders
    of this user, or of a worker's uid, are removed: never a link, never someone else's.
    """
    folders = list(Path(tempfile.gettempdir()).glob(f"{prefix}*-*"))
    running = set(process_ids()) if folders else set()
    for folder in folders:
        pid = folder.name[len(prefix) :].split("-", 1)[0]
        if not pid.isdigit() or int(pid) in running:
            continue
        try:
            info = os.lstat(folder)
        except OSError:
            continue
        owners_ok = info.st_uid == os.getuid() or (os.getuid() == 0 and info.st_uid >= WORKER_UID_BASE)
        if stat.S_ISDIR(info.st_mode) and owners_ok:
            remove_tree(folder)


# -- orphans: a sandbox whose bwrap died while it started -------------------------------------------------------


def adopt_orphans() -> None:
    """Make this process the one its process tree's orphans are re-parented to, instead of init
    (``PR_SET_CHILD_SUBREAPER``), so that :func:`end_adopted_sandboxes` can end them. Linux only; elsewhere nothing.

    Why: bubblewrap's ``--die-with-parent`` has a window (containers/bubblewrap#633, open): a bwrap killed while
    it starts its sandbox (a ``kill`` or ``timeout`` of the whole process group, on a loaded machine) leaves the
    sandbox's first process waiting forever for a message its parent never sends; it is the first process of its
    PID namespace, so a SIGTERM does not end it. Re-parented to init it would outlive ``grade`` for good."""
    if _prctl is not None:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def end_adopted_sandboxes(timeout: float = END_WAIT_SECONDS) -> int:
    """SIGKILL (which reaches a namespace's first process from outside) every bwrap that is this process's child,
    wait up to ``timeout`` for each to exit and reap it; return how many there were. Called as ``grade`` exits,
    when none of its own sandboxes is still running: each one left is an orphan :func:`adopt_orphans` took in."""
    me = os.getpid()
    left = {pid for pid, (parent, _) in live_processes().items() if parent == me and _name(pid) == "bwrap"}
    _wait_exited(_kill(left), time.monotonic() + timeout)
    for pid in left:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return len(left)
