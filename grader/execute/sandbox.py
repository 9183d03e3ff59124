"""How the worker process is started: which isolation level it gets, its command line and its environment.

Two levels, the strongest the platform allows unless one is forced (``GRADER_ISOLATION`` or
``WorkerMode.isolation``; see SECURITY.md):

``bubblewrap``
    The worker runs under ``bwrap`` in new pid, network, IPC, UTS and mount namespaces. Its filesystem is
    built from nothing: the system directories and the Python installation read-only, the ``grader``
    package read-only, a private ``/tmp``, and its working directory read-write. The lessons, the hidden
    suites, the solutions, the grader's outputs and other learners' files are simply not there. Killing
    the namespace's first process (bwrap, with ``--die-with-parent``) kills every process in it.
``process``
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

import functools
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.config import ISOLATION_ENV, ISOLATION_LEVELS, WORKER_STARTS, WORKERS_ENV, Limits, WorkerMode, lessons_root
from grader.errors import UsageError

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
_PACKAGE_PARENT = str(_PACKAGE_DIR.parent)

#: Parts of /etc a Python process needs; the rest of /etc (credentials, site configuration) stays out of view.
_ETC = (
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "alternatives",
    "fonts",
    "mime.types",
    "ssl",
)
_ROOT_CAPS = ("CAP_DAC_READ_SEARCH", "CAP_SETUID", "CAP_SETGID")
_NAMESPACES = ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")

DROP_NONE, DROP_AT_EXEC, DROP_IN_WORKER = "none", "exec", "worker"


@dataclass(frozen=True)
class Launch:
    argv: tuple[str, ...]
    env: dict[str, str]
    isolation: str
    """One line for the report: the level and what it means."""
    level: str
    """``bubblewrap`` or ``process``."""
    drop: str
    """Where learner code leaves the grader's uid: ``none``, ``exec`` (in preexec) or ``worker`` (in worker_main)."""


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


def worker_command(program: str = WORKER_PROGRAM) -> tuple[str, ...]:
    """``python -I`` running ``program``'s ``main()`` (the worker, or the zygote that forks workers)."""
    code = f"import sys; sys.path.insert(0, {_PACKAGE_PARENT!r}); from {program} import main; main()"
    return (sys.executable, "-I", "-c", code)


def launch(workdir: Path, limits: Limits, mode: WorkerMode, program: str | None = None) -> Launch:
    """The command line, environment and isolation for a worker whose working directory is ``workdir``
    (``program``: the worker :func:`worker_program` chooses, unless given)."""
    program = program or worker_program(mode)
    level, why_not_bwrap = choose_level(mode)
    root, env = _is_root(), worker_env(workdir)
    if level == "bubblewrap":
        user = "an unprivileged user" if root else "the grader's user in a user namespace"
        text = f"namespaces (bubblewrap): own filesystem view, /tmp and processes, no network; as {user}"
        argv = (*bwrap_argv(workdir, limits, root), *worker_command(program))
        return Launch(argv, env, text, level, DROP_IN_WORKER if root else DROP_NONE)
    blocker = _drop_blocker(workdir) if root else "the grader does not run as root"
    if blocker is None:
        text = (
            "process limits, as an unprivileged user: files every user may read stay readable; "
            f"network open ({why_not_bwrap})"
        )
        return Launch(worker_command(program), env, text, level, DROP_AT_EXEC)
    text = (
        f"process limits only, as the grader's own user ({blocker}): learner code can read and write what the "
        f"grader can and signal it; network open ({why_not_bwrap})"
    )
    return Launch(worker_command(program), env, text, level, DROP_NONE)


def choose_level(mode: WorkerMode) -> tuple[str, str]:
    """The isolation level to use and, for ``process``, why not bubblewrap."""
    wanted = mode.isolation or os.environ.get(ISOLATION_ENV) or "auto"
    if wanted not in ISOLATION_LEVELS:
        raise UsageError(
            f"{ISOLATION_ENV}={wanted!r} is not an isolation level; use one of {', '.join(ISOLATION_LEVELS)}."
        )
    if wanted == "process":
        return "process", f"{ISOLATION_ENV}=process"
    problem = bwrap_problem()
    if problem is None:
        return "bubblewrap", ""
    if wanted == "bubblewrap":
        raise UsageError(f"{ISOLATION_ENV}=bubblewrap, but bubblewrap cannot run here: {problem}.")
    return "process", problem


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


# -- bubblewrap ------------------------------------------------------------------------------------------------
def bwrap_argv(workdir: Path, limits: Limits, root: bool) -> tuple[str, ...]:
    """The bwrap command line that runs a worker in ``workdir`` (everything before the worker's own argv)."""
    exe = shutil.which("bwrap") or "bwrap"
    args: list[str] = [exe, *_NAMESPACES, "--die-with-parent", "--hostname", "grader"]
    if root:  # until the worker leaves root: enter its (0700, not root's) workdir, then change uid
        args += ["--cap-drop", "ALL", *(a for cap in _ROOT_CAPS for a in ("--cap-add", cap))]
    tmpfs = str(limits.tmpfs_mb * 1024 * 1024)  # first: a Python or workdir below /tmp is bound on top of it
    args += ["--dev", "/dev", "--proc", "/proc"]
    args += [
        "--perms",
        "1777",
        "--size",
        tmpfs,
        "--tmpfs",
        "/tmp",
        "--perms",
        "1777",
        "--size",
        tmpfs,
        "--tmpfs",
        "/dev/shm",
    ]
    made = {"/tmp", "/dev", "/proc"}  # mounted already; never re-created with other permissions

    def bind(option: str, path: Path | str) -> None:
        args.extend([*_parents(Path(path), made), option, str(path), str(path)])

    bind("--ro-bind", "/usr")
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            args.extend(["--symlink", os.readlink(path), str(path)])
        elif path.is_dir():
            bind("--ro-bind", path)
    for name in _ETC:
        bind("--ro-bind-try", f"/etc/{name}")
    bind("--ro-bind-try", "/sys/devices/system/cpu")
    shown = _visible_dirs()
    for path in shown:
        bind("--ro-bind", path)
    bind("--bind", workdir)
    for secret in _secrets_inside(shown):
        args += ["--tmpfs", str(secret)] if secret.is_dir() else ["--ro-bind", "/dev/null", str(secret)]
    args += ["--remount-ro", "/", "--chdir", str(workdir), "--"]
    return tuple(args)


def _visible_dirs() -> list[Path]:
    """The Python installation (and its base, for a venv) and the grader package: all the worker imports from."""
    dirs = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    dirs |= {Path(os.path.realpath(p)) for p in sysconfig.get_paths().values() if os.path.isdir(p)}
    dirs.add(Path(os.path.realpath(sys.executable)).parent)
    dirs.add(_PACKAGE_DIR)
    # /usr is already visible; a path inside another shown path needs no bind of its own
    kept = sorted(d for d in dirs if not _inside(d, Path("/usr")))
    return [d for d in kept if not any(d != o and _inside(d, o) for o in kept)]


def _parents(path: Path, made: set[str]) -> list[str]:
    """Create the directories above ``path`` world-traversable (bwrap would make them 0700)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        name = str(parent)
        if name == "/" or name in made:
            continue
        made.add(name)
        args += ["--perms", "0755", "--dir", name]
    return args


def _secrets_inside(shown: list[Path]) -> list[Path]:
    """Lessons and solutions that happen to live inside a directory the worker sees: they are masked."""
    try:
        lessons = Path(os.path.realpath(lessons_root()))
    except (OSError, UsageError):  # no lessons found: none to mask
        return []
    candidates = (lessons, lessons.parent / "solutions")
    return [c for c in candidates if c.exists() and any(_inside(c, d) for d in shown)]


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@functools.cache
def bwrap_problem() -> str | None:
    """None if bubblewrap can start a worker's sandbox here; otherwise why not. Tried once per process."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed"
    with tempfile.TemporaryDirectory(prefix="grader-probe-") as tmp:
        argv = (*bwrap_argv(Path(tmp), Limits(), _is_root()), sys.executable, "-I", "-S", "-c", "pass")
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, cwd=tmp)
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"bwrap did not start ({err})"
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap failed ({detail[0][:200] if detail else f'exit status {done.returncode}'})"
    return None


# -- the process level -----------------------------------------------------------------------------------------
def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _drop_blocker(workdir: Path) -> str | None:
    """Why a fresh unprivileged uid could not run the worker (its Python is in a private folder), or None."""
    needed = [
        Path(sys.executable),
        *(Path(p) for p in sysconfig.get_paths().values() if os.path.isdir(p)),
        _PACKAGE_DIR,
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
