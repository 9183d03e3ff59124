"""Every message that crosses between the grading process and the processes it starts, in one place.

Two protocols, both JSON objects whose type is under the key :data:`TYPE`:

- the channel (:mod:`grader.execute.channel`): grading process <-> worker, JSON lines over two pipes;
- the zygote's control socket (:mod:`grader.execute.zygote`, :mod:`grader.execute.zygote_main`): grading
  process <-> zygote, one object per datagram, ``fork`` carrying three file descriptors.

Both sides import the constants and shapes below, so a kind or a field is spelled once. The shapes say what
a well-formed message holds; what arrives from the learner's side is still checked field by field where it
is read, since nothing it sends is trusted. The values that a message means once it arrives (a call's
:class:`Returned`, an :class:`Opaque` description, the channel's failures) are defined here too, because
hidden tests (:mod:`grader.testing`) and self-check (:mod:`grader.selfcheck`) handle them.

The daemon's protocol (``grade`` client <-> grading daemon) is :mod:`grader.serve.protocol`: it is spoken
between two trusted processes of the same user, never inside the sandbox, and belongs to ``serve``.

This module imports only the standard library: the worker and the zygote import it inside the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

TYPE = "t"
"""The key that names a message's kind, in every protocol."""

# -- the channel: grading process <-> worker -------------------------------------------------------------
READY = "ready"
"""worker -> grader: booted; the notebook's clock starts."""
RUN = "run"
"""grader -> worker: run these cells top to bottom."""
CELL = "cell"
"""worker -> grader: now running this cell (so a timeout can name it)."""
EXECUTED = "executed"
"""worker -> grader: every cell ran; these raised."""
GET = "get"
"""grader -> worker: the value of a variable."""
CALL = "call"
"""either way: call a learner function by name, or call back a lent callable by reference."""
RETURN = "return"
"""either way: the answer to request ``id``."""
RAISE = "raise"
"""either way: request ``id`` raised."""
FRESH = "fresh"
"""grader -> lender's worker (:mod:`grader.execute.lender_main`): serve the next learner from a fresh copy of the
state the solution left; it answers ``ready`` once the fresh copy listens."""

MAX_RUN_BYTES = 64 << 20
"""The largest message a worker reads, once encoded: the ``run`` message, which holds the notebook's code (the
grader refuses a notebook whose code is larger, with a sentence, rather than send it)."""

# -- the zygote's control socket: grading process <-> zygote ---------------------------------------------
FORK = "fork"
"""grader -> zygote (with the channel's read end, write end and the output pipe): fork a worker."""
FORKED = "forked"
"""zygote -> grader: the worker's pid."""
POLL = "poll"
"""grader -> zygote: has this worker exited?"""
STATUS = "status"
"""zygote -> grader: its exit status (negative for a signal), or None."""
END = "end"
"""grader -> zygote, once the grader has closed its ends of the worker's channel: end this worker and make sure
nothing of it is left (sweeping, if anything is)."""
ENDED = "ended"
"""zygote -> grader: nothing of the worker is left; its exit status, and whether that took a sweep."""
ERROR = "error"
"""zygote -> grader: a request it does not know."""
# the zygote also says READY once it has started


class CellSource(TypedDict):
    index: int
    source: str


class CellRaised(TypedDict):
    index: int
    ename: str
    """The exception's type name."""
    evalue: str
    """Its message, cut short."""


class Ready(TypedDict):
    t: str


class Fresh(TypedDict):
    t: str


class Run(TypedDict):
    t: str
    cells: list[CellSource]


class CellStarted(TypedDict):
    t: str
    index: int


class Executed(TypedDict):
    t: str
    errors: list[CellRaised]
    """The first :data:`MAX_CELL_ERRORS` cells that raised."""
    more: int
    """How many more cells raised, not listed (20,000 raising cells once made this message too large to read)."""


#: Cells that raised that one ``executed`` message lists (each a few hundred bytes: well within a message).
MAX_CELL_ERRORS = 200


def executed(errors: list[CellRaised]) -> Executed:
    """The ``executed`` message for these errors, the first :data:`MAX_CELL_ERRORS` listed and the rest counted."""
    return Executed(t=EXECUTED, errors=errors[:MAX_CELL_ERRORS], more=max(0, len(errors) - MAX_CELL_ERRORS))


class Get(TypedDict):
    t: str
    name: str


class _CallArguments(TypedDict):
    t: str
    args: Any
    kwargs: Any


class CallByName(_CallArguments):
    """grader -> worker; ``swap`` names lesson functions replaced by callables for this call only."""

    name: str
    swap: dict[str, Any]


class CallBack(_CallArguments):
    """Either way: call the lent callable ``fn`` (what crossed as ``{"$fn": fn}``)."""

    fn: int


class Return(TypedDict):
    t: str
    id: Any
    value: Any


class _Raise(TypedDict):
    t: str
    id: Any
    type: str
    message: str


class Raise(_Raise, total=False):
    traceback: str
    """Sent by the worker only: the grader never shows the learner its own traceback."""


class CallReply(TypedDict):
    """What the worker's answer to a :class:`CallByName` holds as its ``value`` (see :class:`Returned`)."""

    value: Any
    changed: list[str]
    same_as: str | None


class Fork(TypedDict):
    t: str
    workdir: str


class Forked(TypedDict):
    t: str
    pid: int


class Poll(TypedDict):
    t: str
    pid: int


class ExitStatus(TypedDict):
    t: str
    status: int | None


class End(TypedDict):
    t: str
    pid: int
    workdir: str


class Ended(TypedDict):
    t: str
    status: int | None
    swept: bool
    """Whether the sweeper ran: False when the worker exited by itself and left nothing."""


class Error(TypedDict):
    t: str
    why: str


# -- what the messages mean on arrival ---------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Opaque:
    """A value that is not plain data, as the worker described it from its type.

    ``text`` ("a numpy array of shape (3,) and dtype int64") is for showing only: an Opaque is never equal to
    a list, tuple, number or string, so no check on a value can pass with one.
    """

    type_name: str
    text: str

    def __repr__(self) -> str:
        return f"<{self.text}>"


@dataclass(frozen=True)
class Returned:
    """What one call of a learner function gave back, as the trusted side receives it."""

    value: Any
    changed: tuple[str, ...] = ()
    """Arguments the call modified in place: positions ("0", "1", ...) and keyword names."""
    same_as: str | None = None
    """"argument 1" / "argument prompt" when the result is that argument object itself; "an earlier result"
    when it is an object an earlier call in the same learner process returned; None otherwise."""


class ChannelError(BaseException):
    """The channel failed: the other side died, hung, or sent something unreadable.

    It derives from BaseException (like pytest's outcomes) so that learner code and test frameworks that
    catch ``Exception`` cannot swallow it and carry on as if the call had returned.
    """


class ChannelClosed(ChannelError):
    """The other side went away (it exited or crashed)."""


class WorkerEnded(ChannelClosed):
    """The learner's worker ended during a call; the message says how, from its exit status, for the learner."""


class ChannelTimeout(ChannelError):
    """No answer came within the time allowed."""


class CallsBudgetSpent(ChannelTimeout):
    """The hidden tests' calls to one notebook used up its time (``TimeBudget.calls``); the message says so."""


class BadMessage(ChannelError):
    """The other side sent something that is not a valid message (too big, too deep, not JSON)."""


class RemoteError(Exception):
    """The function called on the other side raised; ``type_name`` and ``message`` describe what it raised."""

    def __init__(self, type_name: str, message: str, traceback: str = "") -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name = type_name
        self.message = message
        self.traceback = traceback
