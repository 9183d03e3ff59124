"""What ``grade NOTEBOOK`` sends to the daemon and gets back: plain, frozen data as one JSON object each way.

Every connection opens with the daemon's :data:`HELLO`, so a client knows at once whether it is alive. Two
requests: a :class:`NotebookRequest` (grade this), answered by an :class:`Answer`, :data:`STALE` or
:data:`COLD`; and :data:`STATUS_REQUEST` (how are you?), answered by a :class:`Status`, which is how
``grade daemon --json`` and the tests see a daemon's state without reading its log. Every reply, and the
status request, is a JSON object whose kind is under the key ``"t"``, as in :mod:`grader.execute.protocol`;
this protocol stays in ``serve`` because only the ``grade`` client and the daemon, two trusted processes of
the same user, speak it.

The request carries everything the answer depends on that is not part of the daemon's identity (see
:func:`grader.serve.client.identity`): the notebook as the learner named it and the folder they named it
from, the grading options, and the terminal the answer will be printed on, so the daemon renders exactly
what a cold ``grade`` would have printed there.

The messages are typed named tuples, not dataclasses: ``grade``'s warm path imports this module before anything
else of the grader's, and importing :mod:`dataclasses` (with :mod:`inspect`) cost ~10 ms of a warm answer of
~0.1 s. They are frozen and typed all the same.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Any, NamedTuple

TYPE = "t"
"""The key that names a message's kind."""
ANSWER, STALE_KIND, COLD_KIND, STATUS = "answer", "stale", "cold", "status"
"""The kinds of message: the reply :class:`Answer`, the replies :data:`STALE` and :data:`COLD`, and
:data:`STATUS_REQUEST` with its reply :class:`Status`."""
#: Environment variables that change how rich renders (read on the learner's side, applied on the daemon's).
TERMINAL_ENV = (
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
)


class Terminal(NamedTuple):
    is_terminal: bool
    columns: int
    env: dict[str, str] = {}  # noqa: RUF012 - shared by the tuples that take it, and never changed

    @classmethod
    def here(cls) -> Terminal:
        return cls(
            is_terminal=sys.stdout.isatty(),
            columns=shutil.get_terminal_size().columns,
            env={k: v for k, v in os.environ.items() if k in TERMINAL_ENV},
        )


class NotebookRequest(NamedTuple):
    """``grade NOTEBOOK`` with its options, as typed."""

    notebook: str
    """The path as the learner gave it (reports and messages show it so)."""
    cwd: str
    """Where it was given from: the daemon reads ``cwd / notebook``."""
    as_json: bool = False
    lesson: str | None = None
    suites: str | None = None
    lessons_root: str | None = None
    """The folder of lessons named (absolute); None: the one found from ``cwd`` (:func:`grader.config.lessons_root`)."""
    timeout: float | None = None
    kernel: bool = False
    terminal: Terminal = Terminal(False, 80)

    def to_json(self) -> bytes:
        return json.dumps({**self._asdict(), "terminal": self.terminal._asdict()}).encode()

    @classmethod
    def from_json(cls, data: bytes) -> NotebookRequest:
        raw: dict[str, Any] = json.loads(data)
        raw["terminal"] = Terminal(**raw["terminal"])
        return cls(**raw)


class Answer(NamedTuple):
    """What the command prints and its exit status."""

    stdout: str
    stderr: str
    exit_status: int

    def to_json(self) -> bytes:
        return json.dumps({TYPE: ANSWER, **self._asdict()}).encode()


#: Replies that tell the client to grade cold instead: the daemon is out of date (it exits after saying
#: so), or the request needs the cold path's own handling (a usage error, printed by click).
STALE = {TYPE: STALE_KIND}
COLD = {TYPE: COLD_KIND}


#: Asks a daemon for its :class:`Status`; it answers only once it is ready (warmed up and accepting).
STATUS_REQUEST = {TYPE: STATUS}

#: What the daemon sends first on every connection of its user, before it reads the request: a client that is
#: not greeted within :attr:`grader.config.TimeBudget.daemon_hello` sends nothing and grades cold (the daemon is
#: stopped or starved), instead of waiting the minutes a real answer may take.
HELLO = b'{"t": "hello"}\n'


class Status(NamedTuple):
    """A daemon's state, as it reports it: what ``grade daemon --json`` shows and the tests poll."""

    pid: int
    ready: bool
    """Warmed up (the first lesson's suites collected, a zygote booted) and accepting requests."""
    answered: int
    """Requests answered with an :class:`Answer` (graded, or found ungradable) since it started."""
    left_cold: int
    """Requests it left to a cold ``grade`` (a usage error)."""
    stale: bool
    """A lesson it holds changed on disk: it has said so and exits as soon as it is not busy."""

    def to_json(self) -> bytes:
        return json.dumps({TYPE: STATUS, **self._asdict()}).encode()

    @classmethod
    def from_json(cls, data: bytes) -> Status | None:
        """The status in a reply, or None for anything else."""
        try:
            raw = json.loads(data)
            if raw.get(TYPE) != STATUS:
                return None
            return cls(
                int(raw["pid"]), bool(raw["ready"]), int(raw["answered"]), int(raw["left_cold"]), bool(raw["stale"])
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def parse_reply(data: bytes) -> Answer | None:
    """The answer in a reply, or None for anything else (stale, cold, garbage): then grade cold."""
    try:
        raw = json.loads(data)
        if raw.get(TYPE) != ANSWER:
            return None
        return Answer(stdout=str(raw["stdout"]), stderr=str(raw["stderr"]), exit_status=int(raw["exit_status"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
