"""The ``grade`` side of the daemon: find it, ask it, and start it. Standard library only: it runs on every call.

A daemon is only ever asked to grade exactly as a cold ``grade`` would here: its socket's name is a hash of
everything a cold ``grade`` would depend on that a request does not carry (:func:`identity`: the grader's code,
:func:`grader.codehash.source_hash`, as a batch's gradebook takes it, the Python running it, and the
environment variables that steer grading). Change any of them and ``grade`` simply finds no daemon under the new
name; the old one exits when idle. A lesson's suites, definition or solution changing is caught by the daemon
itself, which then says it is stale and exits. Whenever the daemon cannot answer, for any reason, ``grade``
grades cold: the daemon can make grading faster, never different, and never lost.

``GRADER_DAEMON`` (see :data:`grader.environment.DAEMON_ENV`): ``auto`` uses a running daemon and starts one
only from an interactive terminal (a learner at a prompt, not a script or CI); ``on`` always starts one;
``off`` never uses one.

The warm path (:func:`warm_answer`) imports nothing of the grader's but this module, :mod:`grader.environment`,
:mod:`grader.codehash` and the protocol: not :mod:`grader.config` (its dataclasses), nor :mod:`pathlib`. What
only starting, listing or stopping a daemon needs is imported where it is used; the limits that say how long to
wait for a daemon (:class:`grader.config.TimeBudget`) are read only once a wait outlasts :data:`FIRST_WAIT`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import stat
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from grader.codehash import source_hash
from grader.environment import DAEMON_ENV, DAEMON_MODES, LESSONS_ENV, SECRET_ENV
from grader.serve.protocol import HELLO, STATUS_REQUEST, Answer, NotebookRequest, Status, Terminal, parse_reply

if TYPE_CHECKING:
    from pathlib import Path

    from grader.config import TimeBudget

_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
#: Environment variables that change what a grade is (the rest reach neither the grader nor the workers).
_STEERING = ("PATH", "TMPDIR", "XDG_RUNTIME_DIR")
_LOG_BYTES = 1 << 20
#: Seconds ``grade`` waits for a daemon's greeting, then for its answer, before it reads how long it may wait in all
#: (:attr:`grader.config.TimeBudget.daemon_hello` and ``daemon_reply``): a live daemon greets at once and answers
#: most notebooks in a tenth of a second, and reading the limits (importing :mod:`grader.config`) costs ~10 ms.
FIRST_WAIT = 0.25


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
    """The grader's code's hash, once a process (~2 ms: every file of the package is read; a plain ``grade
    NOTEBOOK`` with no daemon running looks for one twice, before and after parsing its command line)."""
    return source_hash(_PACKAGE)


def _folder() -> str | None:
    """This user's private folder for daemon sockets, created 0700; None if it is not safely ours."""
    base = os.environ.get("XDG_RUNTIME_DIR") or _temporary_folder()
    path = os.path.join(base, f"inference-grader-{os.getuid()}")
    try:
        try:
            os.mkdir(path, 0o700)  # not its parents: a runtime folder that is not there is no place for a socket
        except FileExistsError:
            pass
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None  # someone else's, or opened up: do not trust a socket in it
    return path


def folder() -> Path | None:
    """:func:`_folder`, as a path."""
    from pathlib import Path

    where = _folder()
    return None if where is None else Path(where)


def _temporary_folder() -> str:
    import tempfile  # only without XDG_RUNTIME_DIR: the warm path imports nothing it does not use (see warm_answer)

    return tempfile.gettempdir()


def _socket_name() -> str | None:
    where = _folder()
    return None if where is None else os.path.join(where, f"{identity()}.sock")


def socket_path() -> Path | None:
    from pathlib import Path

    name = _socket_name()
    return None if name is None else Path(name)


class Asked(NamedTuple):
    """What asking the daemon gave: its answer, or None (then ``grade`` grades cold), and a line for the learner
    when a daemon was there but did not greet in time (None when there was simply no daemon to ask)."""

    answer: Answer | None
    note: str | None = None


class _Silent(Exception):
    """The daemon took the connection but did not greet within ``TimeBudget.daemon_hello``."""


def notebook_request(
    notebook: str | os.PathLike[str],
    *,
    as_json: bool = False,
    lessons: str | os.PathLike[str] | None = None,
    lesson: str | None = None,
    suites: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    kernel: bool = False,
) -> NotebookRequest:
    """``grade NOTEBOOK`` with these options, as this process would grade it: the one place a request is made, for
    :func:`warm_answer` and for ``grade``'s own command (:func:`grader.cli.notebook_command`), so a daemon is asked
    the same either way. Folders are made absolute here (a daemon runs in another folder); the lessons, when none
    are named, are found from this folder where the request is graded (:func:`grader.answer.options_for`);
    ``timeout`` None: the default limits."""
    return NotebookRequest(
        notebook=os.fspath(notebook),
        cwd=os.getcwd(),
        as_json=as_json,
        lesson=lesson,
        timeout=timeout,
        kernel=kernel,
        suites=None if suites is None else os.path.realpath(suites),
        lessons_root=None if lessons is None else os.path.realpath(lessons),
        terminal=Terminal.here(),
    )


def warm_answer(args: list[str]) -> Answer | None:
    """The warm daemon's answer to ``grade NOTEBOOK [--json] [--lessons FOLDER]`` (``args``, as typed), asked with
    nothing imported but this module (see the module's docstring); None for anything else, and whenever no daemon
    answers.

    A learner at a terminal runs this again and again; the daemon answers a notebook in tens of milliseconds, and
    importing all of ``grade``'s commands (click, every option, the LMS table their choices come from) took ~50 ms
    more. Whatever this returns None for goes to :mod:`grader.cli`, which parses the same arguments as always (and
    reports what is wrong with them); a daemon that did not answer is not asked again there (see :func:`ask`).
    """
    if SECRET_ENV in os.environ:
        return None  # the command takes the course secret out of its environment first: leave it to it
    notebook, as_json, lessons = _plain(args)
    if notebook is None or mode() == "off":
        return None
    path = _socket_name()
    if path is None or not os.path.exists(path):
        return None
    asked = ask(notebook_request(notebook, as_json=as_json, lessons=lessons), path)
    if asked.note:
        print(asked.note, file=sys.stderr)
    _ASKED[path] = Asked(asked.answer)  # said once; not asked again (see ask)
    return asked.answer


def _plain(args: list[str]) -> tuple[str | None, bool, str | None]:
    """``(NOTEBOOK, --json, --lessons FOLDER)`` when ``args`` are those and no others, each valid as the command
    would take it (an ``.ipynb`` path that is not a folder, an existing folder); ``(None, ...)`` otherwise."""
    notebook: str | None = None
    as_json, lessons = False, None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--json" and not as_json:
            as_json = True
        elif arg.startswith("--lessons=") and lessons is None:
            lessons = arg.removeprefix("--lessons=")
        elif arg == "--lessons" and lessons is None and rest:
            lessons = rest.pop(0)
        elif notebook is None and arg.endswith(".ipynb") and not arg.startswith("-"):
            notebook = arg
        else:
            return None, False, None
    if notebook is None or os.path.isdir(notebook) or (lessons is not None and not os.path.isdir(lessons)):
        return None, False, None
    return notebook, as_json, lessons


_ASKED: dict[str, Asked] = {}
"""What :func:`warm_answer` was told, in this process, by socket: when it leaves the command to :mod:`grader.cli`,
the command's own :func:`ask` gets the same outcome without asking again (a daemon that did not greet would be
waited for twice, and one that left a request to a cold grade would count it twice). One ``grade`` process makes
one request, the one both paths make of the same arguments."""


def ask(request: NotebookRequest, path: str | os.PathLike[str] | None) -> Asked:
    """The daemon's answer, or none if there is no daemon, it is stale, silent, or anything at all went wrong."""
    if path is None or mode() == "off":
        return Asked(None)
    told = _ASKED.get(os.fspath(path))
    if told is not None:
        return told
    try:
        reply = _exchange(os.fspath(path), request.to_json(), lambda: _waits(request.timeout))
    except _Silent as silent:
        return Asked(
            None,
            f"The grading daemon did not answer within {silent.args[0]:g} s (it is stopped, or this machine is "
            "too busy), so this notebook is graded without it, which takes longer; `grade daemon stop` ends it.",
        )
    return Asked(None if reply is None else parse_reply(reply))


def _budget(timeout: float | None) -> TimeBudget:
    """The clocks of the limits a request grades with: how long to wait for the daemon's greeting and answer."""
    from grader.config import limits_for

    return limits_for(timeout).budget


def _waits(timeout: float | None) -> tuple[float, float]:
    """Seconds to wait for the daemon's greeting, and for each read of its answer, for a request with ``timeout``."""
    budget = _budget(timeout)
    return budget.daemon_hello, budget.daemon_reply


def reply_seconds(request: NotebookRequest) -> float:
    """How long to wait for the daemon's answer: derived from the limits the request grades with."""
    return _budget(request.timeout).daemon_reply


def status(path: Path, seconds: float | None = None) -> Status | None:
    """The state of the daemon on this socket, or None if none answers within ``seconds`` (default
    :data:`grader.config.DAEMON_STATUS_SECONDS`: not there, or warming up)."""
    if seconds is None:
        from grader.config import DAEMON_STATUS_SECONDS

        seconds = DAEMON_STATUS_SECONDS
    waits = (seconds, seconds)
    try:
        reply = _exchange(os.fspath(path), json.dumps(STATUS_REQUEST).encode(), lambda: waits, first=seconds)
    except _Silent:
        return None
    return None if reply is None else Status.from_json(reply)


def _exchange(
    path: str, request: bytes, waits: Callable[[], tuple[float, float]], first: float | None = None
) -> bytes | None:
    """Send one request on the socket and read the whole reply; None if anything went wrong.

    The daemon must greet (:data:`HELLO`) within its greeting's wait of the connection, else :class:`_Silent` is
    raised (with that wait) and nothing is sent (a stopped daemon, with its connections queued, would otherwise
    hold ``grade`` for minutes); then the reply's first part must come within the answer's wait, and each later
    part within as long again. ``waits()`` gives both, in seconds, and is asked only once a wait outlasts ``first``
    (default :data:`FIRST_WAIT`)."""
    first = FIRST_WAIT if first is None else first
    told: list[tuple[float, float]] = []

    def wait(which: int) -> float:
        if not told:
            told.append(waits())
        return told[0][which]

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(first)
            try:
                conn.connect(path)  # waits only when its queue of connections is full
                greeting = _read(conn, len(HELLO), lambda: wait(0) - first)
            except TimeoutError:
                raise _Silent(wait(0)) from None
            if greeting != HELLO:
                return None  # it closed the connection (not our user's, or exiting)
            conn.settimeout(first)
            conn.sendall(request)
            conn.shutdown(socket.SHUT_WR)
            return _read(conn, None, lambda: wait(1) - first)
    except OSError:  # no daemon (ENOENT, ECONNREFUSED), it died, or it took too long
        return None


def _read(conn: socket.socket, size: int | None, longer: Callable[[], float]) -> bytes:
    """``size`` bytes (None: up to the end), waiting at first the socket's timeout, then once ``longer()`` seconds
    more, and from then on that long for each read (TimeoutError when even that passes, or when there is no more to
    wait)."""
    chunks: list[bytes] = []
    got, extended = 0, False
    while size is None or got < size:
        try:
            chunk = conn.recv((1 << 16) if size is None else size - got)
        except TimeoutError:
            remaining = 0.0 if extended else longer()
            if remaining <= 0:
                raise
            extended = True
            conn.settimeout(remaining)
            continue
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
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


class Running(NamedTuple):
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
