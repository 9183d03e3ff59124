"""What an isolation level is: a backend that wraps the worker's command, and what it guarantees.

The table of levels is :data:`grader.execute.sandbox.LEVELS`, one :class:`Level` per backend, strongest first.
Everything else in ``execute/`` asks a level's row what it can do (``private_tmp``, ``ends_with_grader``, ...)
rather than comparing its name, so a new backend (a container runtime, say) is one module with its
``problem`` and ``wrap`` (as :mod:`grader.execute.bubblewrap` is) and one row of that table.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.config import Limits

#: Where learner code leaves the grader's uid when the grader runs as root: never (``none``: the grader is not
#: root, or no unprivileged uid could run the worker), in the worker's ``preexec`` (``exec``) or in the worker
#: itself, before any cell (``worker``: inside a sandbox where the Python installation is visible to that uid).
DROP_NONE, DROP_AT_EXEC, DROP_IN_WORKER = "none", "exec", "worker"

#: What ``GRADER_ISOLATION`` / ``WorkerMode.isolation`` take besides a level's name: the strongest that runs here.
AUTO = "auto"


@dataclass(frozen=True)
class Wrapping:
    """How a level runs one worker: what goes before the worker's command line, and what the report says."""

    prefix: tuple[str, ...]
    """The wrapper and its options (``bwrap ... --``); empty for a worker run directly."""
    drop: str
    """One of ``DROP_NONE``, ``DROP_AT_EXEC``, ``DROP_IN_WORKER``."""
    text: str
    """One line for the report: the level and what it means."""


@dataclass(frozen=True)
class Level:
    """One isolation level: its backend's two functions and the capabilities the rest of ``execute/`` relies on."""

    name: str
    """What ``GRADER_ISOLATION`` takes, the report and the gradebook show (a grade's fingerprint holds it)."""
    problem: Callable[[], str | None]
    """None when it can run here, else why not (a probe, tried once per process)."""
    wrap: Callable[[Path, Limits, bool, str], Wrapping]
    """``(workdir, limits, root, why no stronger level)``: how one worker in ``workdir`` runs."""
    private_tmp: bool
    """The worker has its own ``/tmp``, ``/dev/shm`` and IPC namespace, so nothing it made there outlives it;
    else what its uid left in the shared ones is removed when it ends."""
    ends_with_grader: bool
    """Every process of the worker dies with the process that started it (a pid namespace whose first process
    has ``--die-with-parent``); else the worker is given ``PR_SET_PDEATHSIG``."""
    signal_as_status: bool
    """The wrapper reports a worker killed by signal N as exit status 128 + N (bwrap does), so it is read back."""
    setuid_wrapper: bool
    """The wrapper may be a setuid program, which ``no_new_privs`` (needed to install the system-call filter
    without root) would stop: the filter is left out then (see :mod:`grader.execute.ipc`)."""
    zygote: bool
    """Long-lived graders may fork its workers from a warm zygote (:mod:`grader.execute.zygote`), which needs a
    worker's sandbox that a fork inherits."""
    sandbox: bool
    """A sandbox: learner code sees none of the grader's files (the lessons, other submissions, the results) and
    no network. What grades other people's notebooks (a batch, a class, Gradescope) falls back under ``auto`` only
    to a level that is one; a level that is not must be asked for by name (``--isolation``)."""


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
