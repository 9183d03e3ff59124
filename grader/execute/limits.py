"""Operating-system limits applied to the worker process just before it starts learner code."""

from __future__ import annotations

import os
import resource
import signal
from typing import Callable

from grader.config import Limits


def preexec(limits: Limits) -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen`: new session, then resource limits (runs in the child)."""
    mb = 1024 * 1024
    cpu = int(limits.timeout + 10 * limits.call_timeout + 30)

    def apply() -> None:
        os.setsid()
        _set(resource.RLIMIT_AS, limits.memory_mb * mb)
        _set(resource.RLIMIT_CPU, cpu)
        _set(resource.RLIMIT_FSIZE, limits.max_file_mb * mb)
        _set(resource.RLIMIT_NOFILE, limits.max_open_files)
        _set(resource.RLIMIT_CORE, 0)
        if os.getuid() != 0:  # root ignores RLIMIT_NPROC; the namespace sandbox bounds root's processes
            _set(resource.RLIMIT_NPROC, limits.max_processes + _running_processes())
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

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
