"""Shared memory between processes: refused while a learner's code runs, and removed when it ends.

System V shared memory, message queues and semaphores, POSIX message queues and ``memfd_create`` hold memory
outside a process's address space, so ``RLIMIT_AS`` does not count it, and System V objects outlive the
process that made them (3 GB held under a 2 GB limit, kept after grading: issue 15). :func:`refuser` gives
:func:`grader.execute.limits.preexec` a seccomp filter that fails those calls with ``ENOSYS``; where it cannot
be installed, :func:`remove_ipc` removes what the learner made once it ends (SECURITY.md). POSIX shared
memory and semaphores are files in ``/dev/shm``, which the sweeps after a learner delete.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import struct
from collections.abc import Callable

from grader.execute.sandbox import Launch

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_PR_SET_NO_NEW_PRIVS = 38
_LIBC = ctypes.CDLL(None, use_errno=True)
_prctl = getattr(_LIBC, "prctl", None)  # Linux only


# -- refused by a system-call filter ------------------------------------------------------------------------------
#: Per machine, its audit architecture and the numbers of the calls refused: System V shared memory, message
#: queues and semaphores (shm*, msg*, sem*), POSIX message queues (mq_*), memfd_create, and the kernel's key
#: management (add_key, request_key, keyctl: a uid's keyring outlives every process of that uid, so a learner's keys
#: stayed after grading, where a later learner given the same uid could read them).
_CALLS = {
    "x86_64": (
        0xC000003E,
        (29, 30, 31, 67, 64, 65, 66, 220, 68, 69, 70, 71, 240, 241, 242, 243, 244, 245, 319, 248, 249, 250),
    ),
    "aarch64": (
        0xC00000B7,
        (194, 195, 196, 197, 190, 191, 192, 193, 186, 187, 188, 189, 180, 181, 182, 183, 184, 185, 279, 217, 218, 219),
    ),
}


def _program(machine: str) -> bytes | None:
    """A seccomp program (classic BPF) failing the calls of :data:`_CALLS` with ENOSYS ("not implemented", as
    on a kernel built without them), and every call of a foreign ABI (32-bit calls on a 64-bit kernel, x32)."""
    if machine not in _CALLS:
        return None
    arch, calls = _CALLS[machine]
    load, equal, at_least, give = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
    refuse, allow, count = 0x00050000 | errno.ENOSYS, 0x7FFF0000, len(calls)  # SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW
    program = [(load, 0, 0, 4), (equal, 1, 0, arch), (give, 0, 0, refuse), (load, 0, 0, 0)]  # arch, then number
    if machine == "x86_64":
        program.append((at_least, count + 1, 0, 0x40000000))  # the x32 ABI's numbers
    program += [(equal, count - i, 0, number) for i, number in enumerate(calls)]  # each jumps to the last: refuse
    program += [(give, 0, 0, allow), (give, 0, 0, refuse)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


FILTER = _program(os.uname().machine) if hasattr(os, "uname") else None
"""The filter every worker (and zygote) gets; None on machines it is not written for, where :func:`remove_ipc`
still removes what a learner made once it ends (SECURITY.md)."""


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _filter_allowed(launch: Launch) -> bool:
    """Installing a filter needs root or no_new_privs, which would stop a setuid wrapper (bwrap) from working."""
    if os.geteuid() == 0 or not launch.can.setuid_wrapper:
        return True
    try:
        return not os.stat(launch.argv[0]).st_mode & stat.S_ISUID
    except OSError:
        return True  # then bwrap will not start either, and says so


def refuser(launch: Launch) -> Callable[[], None]:
    """What installs the filter in a worker's ``preexec``, before any learner code (built here, in the grader: a
    ``preexec`` must not allocate much); a no-op where the filter cannot be installed."""
    if FILTER is None or _prctl is None or not _filter_allowed(launch):
        return lambda: None
    prctl, fprog = _prctl, _SockFprog(len(FILTER) // 8, FILTER)

    def install() -> None:
        if os.geteuid() != 0:
            prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # what lets an unprivileged process install a filter
        prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)

    return install


# -- removed with the learner -------------------------------------------------------------------------------------
_IPC_RMID = 0
_IPC_KINDS = (("shm", _LIBC.shmctl), ("msg", _LIBC.msgctl), ("sem", _LIBC.semctl))


def remove_ipc(owner: int | None = None) -> bool:
    """Remove the System V shared memory segments, message queues and semaphore sets of this process's IPC
    namespace (only those ``owner`` owns or created, if given); True if none of them is left.

    The filter refuses them in the first place where it is installed; this is what removes them where it is not
    (the ipcs/ipcrm of util-linux, through ``/proc/sysvipc`` and the ``*ctl`` calls).
    """
    left = False
    for kind, control in _IPC_KINDS:
        for ident in _ipc_objects(kind, owner):
            if kind == "sem":
                control(ident, 0, _IPC_RMID)  # semctl(id, semnum, cmd)
            else:
                control(ident, _IPC_RMID, None)
        left = left or bool(_ipc_objects(kind, owner))
    return not left


def ipc_objects_left() -> bool:
    """Whether this process's IPC namespace holds any System V object (read, nothing removed)."""
    return any(_ipc_objects(kind, None) for kind, _ in _IPC_KINDS)


def _ipc_objects(kind: str, owner: int | None) -> list[int]:
    try:
        with open(f"/proc/sysvipc/{kind}") as table:
            header, *rows = (line.split() for line in table.read().splitlines() if line.strip())
    except (OSError, ValueError):
        return []
    uid, cuid = header.index("uid"), header.index("cuid")
    return [int(row[1]) for row in rows if owner is None or owner in (int(row[uid]), int(row[cuid]))]
