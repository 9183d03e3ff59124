"""The ``grade`` side of the daemon: find it, ask it, and start it. Standard library only: it runs on every call.

A daemon is only ever asked to grade exactly as a cold ``grade`` would here: its socket's name is a hash of
everything a cold ``grade`` would depend on that a request does not carry (:func:`identity`: the grader's code,
:func:`grader.staleness.source_hash`, as a batch's gradebook takes it, the Python running it, and the
environment variables that steer grading). Change any of them and ``grade`` simply finds no daemon under the new
name; the old one exits when idle. A lesson's suites, definition or solution changing is caught by the daemon
itself, which then says it is stale and exits. Whenever the daemon cannot answer, for any reason, ``grade``
grades cold: the daemon can make grading faster, never different, and never lost.

``GRADER_DAEMON`` (see :data:`grader.config.DAEMON_ENV`): ``auto`` uses a running daemon and starts one
only from an interactive terminal (a learner at a prompt, not a script or CI); ``on`` always starts one;
``off`` never uses one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.config import (
    DAEMON_ENV,
    DAEMON_MODES,
    DAEMON_STATUS_SECONDS,
    DEFAULT_LIMITS,
    LESSONS_ENV,
    SECRET_ENV,
    lessons_root,
    limits_for,
)
from grader.errors import UsageError
from grader.serve.protocol import HELLO, STATUS_REQUEST, Answer, NotebookRequest, Status, Terminal, parse_reply
from grader.staleness import source_hash

_PACKAGE = Path(__file__).resolve().parents[1]
#: Environment variables that change what a grade is (the rest reach neither the grader nor the workers).
_STEERING = ("PATH", "TMPDIR", "XDG_RUNTIME_DIR")
_LOG_BYTES = 1 << 20


def mode() -> str:
    """``auto``, ``on`` or ``off``; ``off`` too for an unknown value, and where a daemon would grade differently."""
    wanted = os.environ.get(DAEMON_ENV) or DAEMON_MODES[0]
    if wanted not in DAEMON_MODES:
        return "off"  # an unknown value never starts a background process
    if not hasattr(socket, "SO_PEERCRED"):
        return "off"  # Linux only: the daemon must be able to check who is asking
    lessons = os.environ.get(LESSONS_ENV)
    if lessons and not os.path.isabs(lessons):
        return "off"  # relative to this folder; a daemon (started in /) would look elsewhere
    return wanted


def identity() -> str:
    """A hash of what a daemon must share with this ``grade`` to answer for it."""
    h = hashlib.sha256()
    h.update(f"{sys.executable}\0{sys.version}\0{_PACKAGE}\0".encode())
    for name in sorted(os.environ):
        if (name.startswith("GRADER_") and name != DAEMON_ENV) or name in _STEERING:
            h.update(f"{name}={os.environ[name]}\0".encode())
    h.update(_code_hash().encode())  # the grader's code, as a batch's gradebook takes it
    return h.hexdigest()[:24]


@functools.cache
def _code_hash() -> str:
    """The grader's code's hash, once a process (~6 ms: every file of the package is read; a plain ``grade
    NOTEBOOK`` with no daemon running looks for one twice, before and after parsing its command line)."""
    return source_hash(_PACKAGE)


def folder() -> Path | None:
    """This user's private folder for daemon sockets, created 0700; None if it is not safely ours."""
    base = os.environ.get("XDG_RUNTIME_DIR") or _temporary_folder()
    path = Path(base) / f"inference-grader-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None  # someone else's, or opened up: do not trust a socket in it
    return path


def _temporary_folder() -> str:
    import tempfile  # only without XDG_RUNTIME_DIR: the warm path imports nothing it does not use (see warm_answer)

    return tempfile.gettempdir()


def socket_path() -> Path | None:
    where = folder()
    return None if where is None else where / f"{identity()}.sock"


@dataclass(frozen=True)
class Asked:
    """What asking the daemon gave: its answer, or None (then ``grade`` grades cold), and a line for the learner
    when a daemon was there but did not greet in time (None when there was simply no daemon to ask)."""

    answer: Answer | None
    note: str | None = None


class _Silent(Exception):
    """The daemon took the connection but did not greet within ``TimeBudget.daemon_hello``."""


def notebook_request(
    notebook: Path,
    *,
    as_json: bool = False,
    lessons: Path | None = None,
    lesson: str | None = None,
    suites: Path | None = None,
    timeout: float = DEFAULT_LIMITS.timeout,
    kernel: bool = False,
) -> NotebookRequest:
    """``grade NOTEBOOK`` with these options, as this process would grade it: the one place a request is made, for
    :func:`warm_answer` and for ``grade``'s own command (:func:`grader.cli.notebook_command`), so a daemon is asked
    the same either way. Raises :class:`UsageError` when no lessons are found (``lessons`` None)."""
    return NotebookRequest(
        notebook=str(notebook),
        cwd=os.getcwd(),
        as_json=as_json,
        lesson=lesson,
        timeout=timeout,
        kernel=kernel,
        suites=None if suites is None else str(suites.resolve()),
        # found here, in the learner's folder: a daemon runs in another
        lessons_root=str((lessons or lessons_root()).resolve()),
        terminal=Terminal.here(),
    )


def warm_answer(args: list[str]) -> Answer | None:
    """The warm daemon's answer to ``grade NOTEBOOK [--json] [--lessons FOLDER]`` (``args``, as typed), asked with
    nothing imported but this module; None for anything else, and whenever no daemon answers.

    A learner at a terminal runs this again and again; the daemon answers a notebook in ~60 ms, and importing all
    of ``grade``'s commands (click, every option, the LMS table their choices come from) took ~50 ms more. So this
    module imports at its top only what this path uses; what starts, lists or stops daemons (subprocess, fcntl,
    signal) and ``tempfile`` (needed only without ``XDG_RUNTIME_DIR``) are imported where they are used. Whatever
    this returns None for goes to :mod:`grader.cli`, which parses the same arguments as always (and reports what is
    wrong with them); a daemon that did not greet in time is not asked again there (see :func:`ask`).
    """
    if SECRET_ENV in os.environ:
        return None  # the command takes the course secret out of its environment first: leave it to it
    notebook, as_json, lessons = _plain(args)
    if notebook is None or mode() == "off":
        return None
    path = socket_path()
    if path is None or not path.exists():
        return None
    try:
        request = notebook_request(notebook, as_json=as_json, lessons=lessons)
    except UsageError:
        return None  # no lessons here: a notebook released with a course service is graded there (grader.cli)
    asked = ask(request, path)
    if asked.note:
        print(asked.note, file=sys.stderr)
    _ASKED[(path, request.to_json())] = Asked(asked.answer)  # said once; not asked again (see ask)
    return asked.answer


def _plain(args: list[str]) -> tuple[Path | None, bool, Path | None]:
    """``(NOTEBOOK, --json, --lessons FOLDER)`` when ``args`` are those and no others, each valid as the command
    would take it (an ``.ipynb`` path that is not a folder, an existing folder); ``(None, ...)`` otherwise."""
    notebook: Path | None = None
    as_json, lessons = False, None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json" and not as_json:
            as_json = True
        elif arg.startswith("--lessons=") and lessons is None:
            lessons = Path(arg.removeprefix("--lessons="))
        elif arg == "--lessons" and lessons is None and rest:
            lessons = Path(rest.pop(0))
        elif notebook is None and arg.endswith(".ipynb") and not arg.startswith("-"):
            notebook = Path(arg)
        else:
            return None, False, None
    if notebook is None or notebook.is_dir() or (lessons is not None and not lessons.is_dir()):
        return None, False, None
    return notebook, as_json, lessons


_ASKED: dict[tuple[Path, bytes], Asked] = {}
"""What :func:`warm_answer` was told, in this process, by socket and request: when it leaves a request to
:mod:`grader.cli`, the command's own :func:`ask` gets the same outcome without asking again (a daemon that did not
greet would be waited for twice, and one that left a request to a cold grade would count it twice)."""


def ask(request: NotebookRequest, path: Path | None) -> Asked:
    """The daemon's answer, or none if there is no daemon, it is stale, silent, or anything at all went wrong."""
    if path is None or mode() == "off":
        return Asked(None)
    told = _ASKED.get((path, request.to_json()))
    if told is not None:
        return told
    budget = limits_for(request.timeout).budget
    try:
        reply = _exchange(path, request.to_json(), reply_seconds(request), budget.daemon_hello)
    except _Silent:
        return Asked(
            None,
            f"The grading daemon did not answer within {budget.daemon_hello:g} s (it is stopped, or this machine is "
            "too busy), so this notebook is graded without it, which takes longer; `grade daemon stop` ends it.",
        )
    return Asked(None if reply is None else parse_reply(reply))


def reply_seconds(request: NotebookRequest) -> float:
    """How long to wait for the daemon's answer: derived from the limits the request grades with."""
    return limits_for(request.timeout).budget.daemon_reply


def status(path: Path, seconds: float = DAEMON_STATUS_SECONDS) -> Status | None:
    """The state of the daemon on this socket, or None if none answers within ``seconds`` (not there, or warming up)."""
    try:
        reply = _exchange(path, json.dumps(STATUS_REQUEST).encode(), seconds, seconds)
    except _Silent:
        return None
    return None if reply is None else Status.from_json(reply)


def _exchange(path: Path, request: bytes, seconds: float, hello_seconds: float) -> bytes | None:
    """Send one request on the socket and read the whole reply; None if anything went wrong. The daemon must
    greet (:data:`HELLO`) within ``hello_seconds`` of the connection, else :class:`_Silent` is raised and nothing
    is sent (a stopped daemon, with its connections queued, would otherwise hold ``grade`` for ``seconds``)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(hello_seconds)
            try:
                conn.connect(str(path))  # waits only when its queue of connections is full
                greeting = b""
                while len(greeting) < len(HELLO) and (chunk := conn.recv(len(HELLO) - len(greeting))):
                    greeting += chunk
            except TimeoutError:
                raise _Silent from None
            if greeting != HELLO:
                return None  # it closed the connection (not our user's, or exiting)
            conn.settimeout(seconds)
            conn.sendall(request)
            conn.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := conn.recv(1 << 16):
                chunks.append(chunk)
    except OSError:  # no daemon (ENOENT, ECONNREFUSED), it died, or it took too long
        return None
    return b"".join(chunks)


def should_start() -> bool:
    return mode() == "on" or (mode() == "auto" and sys.stdin.isatty() and sys.stdout.isatty())


def start(request: NotebookRequest, path: Path | None) -> None:
    """Start a daemon in the background for the next ``grade`` (warmed for this request's lesson)."""
    if path is None:
        return
    import subprocess  # here, not at the top: the warm path (warm_answer) never starts a daemon

    log = path.with_suffix(".log")
    try:
        if log.exists() and log.stat().st_size > _LOG_BYTES:
            log.unlink()
        with open(log, "ab") as err:  # appended to: what an earlier daemon said is kept
            subprocess.Popen(
                [sys.executable, "-m", "grader.serve.daemon", str(path), request.to_json().decode()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                cwd="/",
                start_new_session=True,  # not stopped by Ctrl-C at this prompt, and outlives this command
                close_fds=True,
            )
    except OSError:
        pass  # the next grade is cold again; nothing is lost


@dataclass(frozen=True)
class Running:
    """A daemon of this user that is alive now (it holds its lock)."""

    pid: int
    socket: Path
    current: bool
    """Whether it is the one this ``grade`` would ask (same code, Python and environment)."""

    @property
    def log(self) -> Path:
        return self.socket.with_suffix(".log")


def running() -> list[Running]:
    """This user's live daemons, found by their locks (a lock is held exactly as long as its daemon lives)."""
    import fcntl

    where = folder()
    if where is None:
        return []
    mine = socket_path()
    found = []
    for lock in sorted(where.glob("*.lock")):
        try:
            with open(lock, "r+") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    continue  # nobody holds it: that daemon has exited
                except OSError:
                    text = handle.read().strip()
        except OSError:
            continue
        if text.isdigit():
            sock = lock.with_suffix(".sock")
            found.append(Running(int(text), sock, sock == mine))
    return found


def stop_all(seconds: float = 10.0) -> list[Running]:
    """Ask every live daemon of this user to exit (SIGTERM) and wait until they have; returns those stopped."""
    import signal
    import time

    daemons = running()
    for daemon in daemons:
        try:
            os.kill(daemon.pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + seconds
    while (running() or any(alive(d.pid) for d in daemons)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return daemons


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
