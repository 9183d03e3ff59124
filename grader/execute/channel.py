"""The narrow channel between the trusted grader and the learner's worker process.

Messages are JSON lines over a pair of pipes, so only plain data crosses, with its Python type kept: None,
bool, int, float and str exactly typed, lists as lists, tuples as tuples, dicts with string keys. Nothing is
ever unpickled, so an object with a forged ``__eq__`` cannot reach a test; a subclass of int, float, str,
list, tuple or dict arrives as the plain value its base type holds, and a numpy scalar as the Python number
it holds. Anything else (a numpy array, a set, a generator, a custom object) arrives as an :class:`Opaque`
description computed from its type, which a test can show ("returned a numpy array, expected a list") but
which is never equal to any value.

On the wire a list is a JSON array and every JSON object is a one-key tag: ``{"$t": [...]}`` a tuple,
``{"$d": {...}}`` a dict, ``{"$o": [type_name, text]}`` an :class:`Opaque`, ``{"$fn": id}`` a callable.

Callables may be passed as arguments in either direction. They stay where they were made: the other side
receives ``{"$fn": id}`` and calls back through the channel. That is how a hidden test hands the learner a
recording ``next_token`` whose record lives only in the trusted process.

Both ends use :class:`Endpoint`; this module imports only the standard library because the worker side
runs it inside the sandbox. The grader's end is given a :class:`Guard`, which makes the learner unable to
borrow, hang, flood or crash it (SECURITY.md, "The trusted side of the channel"):

- a callable is lent for one call only: :meth:`Endpoint.request` revokes what it exported when it returns;
- every wait and every write has a deadline, the one of the outermost call a learner's code is in, so time
  spent on the learner's behalf (stand-ins, callbacks, decoding) counts against that call's budget;
- calls nest through the channel at most ``Guard.max_call_depth`` deep;
- what arrives is counted and made valid UTF-8 by :func:`screen` before anything else is done with it;
- an exception sent back to the learner carries its type name and a message with no trusted file paths.
"""

from __future__ import annotations

import json
import os
import re
import select
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import FunctionType
from typing import Any

from grader.execute.protocol import (
    CALL,
    RAISE,
    RETURN,
    TYPE,
    BadMessage,
    CallBack,
    ChannelClosed,
    ChannelError,
    ChannelTimeout,
    Opaque,
    Raise,
    RemoteError,
    Return,
)

FN_KEY = "$fn"
TUPLE_KEY = "$t"
DICT_KEY = "$d"
OPAQUE_KEY = "$o"
MAX_DEPTH = 64
SCALARS = frozenset({type(None), bool, int, float, str})
"""The types whose values cross the channel as they are: exactly these (a subclass may hold state of its own)."""
MAX_TYPE_NAME = 100
MAX_DESCRIPTION = 200
_ENCODER = json.JSONEncoder(separators=(",", ":"))
"""One encoder for every message (``json.dumps`` with separators builds a new one each call)."""
_FN_QUOTED = b'"' + FN_KEY.encode() + b'"'


class Fields:
    """What a handler returns for a dict of fields it has already made JSON-ready (each with
    :meth:`Endpoint.encode`, or plain by construction): sent as that dict, without walking it again. The worker's
    reply to every call is one (:class:`grader.execute.protocol.CallReply`)."""

    __slots__ = ("fields",)

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.fields = fields


def all_scalars(values: Iterable[Any]) -> bool:
    """Whether every value is exactly None, a bool, an int, a float or a str: plain data as it is, which nothing can
    change in place (a loop, not ``all()``: no generator to build, for every call's arguments)."""
    for v in values:
        if type(v) not in SCALARS:
            return False
    return True


class LentFunctionExpired(LookupError):
    """A function the grader lent for one call was called after that call returned (its name crosses the channel)."""


class CallDepthExceeded(RecursionError):
    """Calls nested through the channel deeper than the grader allows (its name crosses the channel)."""


Handler = Callable[[dict[str, Any]], Any]

_in_call = threading.local()
"""Per thread, the deadline of the outermost learner call it is in (``deadline``), across every guarded end: a
lent solution function asked of the lender's worker keeps the deadline of the learner call that asked for it."""


def call_deadline() -> float | None:
    """The deadline of the learner call the current thread is in, on the grader's side; None outside any."""
    deadline: float | None = getattr(_in_call, "deadline", None)
    return deadline


@dataclass(frozen=True)
class Guard:
    """What the grader's end allows the learner's end (built from :class:`grader.config.Limits`)."""

    timeout: float
    """Seconds any wait or write may take when no call's deadline applies."""
    max_call_depth: int
    """Calls in flight at once through this end: a learner function -> a stand-in -> a learner function ..."""
    max_items: int
    """List items and dict entries in one received message, all levels together."""
    max_refs: int
    """Callable references (``{"$fn": id}``) in one received message."""
    max_chars: int
    """Characters in one received string."""


class Endpoint:
    """One end of the channel: send requests, answer the other side's calls while waiting for replies.

    With a ``guard`` it is the grader's end, and enforces it; without one (the worker's end) it trusts what
    it receives, as the worker may: the grader is the trusted side.
    """

    def __init__(
        self, rfd: int, wfd: int, handler: Handler, *, max_bytes: int = 1 << 20, guard: Guard | None = None
    ) -> None:
        self._rfd = rfd
        self._wfd = wfd
        self._handler = handler
        self._max_bytes = max_bytes
        self._guard = guard
        self._buffer = b""
        self._next_id = 0
        self._exports: dict[int, Callable[..., Any]] = {}
        self._lent: list[list[int]] = []
        """The ids exported during each call in flight, innermost last: revoked when that call returns."""
        self._deadline: float | None = None
        """The earliest deadline of the calls in flight: every wait and write nested in them keeps it."""
        if guard is not None:
            os.set_blocking(wfd, False)  # a worker that stops reading must not block our writes past a deadline
            os.set_blocking(rfd, False)  # read what is there at once; wait (to the deadline) only when nothing is

    # -- encoding -----------------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        """Make ``value`` JSON-ready (see the module's wire format); callables become references to call back."""
        kind = type(value)
        if kind is Fields:
            return {DICT_KEY: value.fields}  # made JSON-ready field by field by the handler that returned it
        if kind is list and all_scalars(value):
            return list(value)  # most calls' arguments: already plain data
        return to_plain(value, self._export, wire=True)

    def _export(self, fn: Callable[..., Any]) -> Any:
        if self._guard is not None and not self._lent:
            raise TypeError("the grader lends a function only for the duration of a call")
        self._next_id += 1
        self._exports[self._next_id] = fn
        if self._lent:
            self._lent[-1].append(self._next_id)
        return {FN_KEY: self._next_id}

    def decode(self, value: Any, depth: int = 0) -> Any:
        """Check a received value's shape, rebuild tuples, dicts and :class:`Opaque` values from their tags,
        and turn callable references into callable proxies. An empty JSON object reads as an empty dict."""
        if depth > MAX_DEPTH:
            raise BadMessage(f"a value nested more than {MAX_DEPTH} levels deep")
        # What json.loads made: exactly a dict, a list, or a scalar. Scalars inside are passed as they are, not
        # through a call each (most values are scalars, and this runs for every value of every message).
        scalars = SCALARS
        if isinstance(value, list):
            return [v if type(v) in scalars else self.decode(v, depth + 1) for v in value]
        if not isinstance(value, dict):
            return value
        if not value:
            return {}
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag == DICT_KEY and isinstance(inner, dict):
                return {k: v if type(v) in scalars else self.decode(v, depth + 1) for k, v in inner.items()}
            if tag == TUPLE_KEY and isinstance(inner, list):
                return tuple([v if type(v) in scalars else self.decode(v, depth + 1) for v in inner])
            if tag == FN_KEY and type(inner) is int:
                return self._remote(inner)
            if tag == OPAQUE_KEY and isinstance(inner, list) and len(inner) == 2 and all(type(t) is str for t in inner):
                return Opaque(inner[0][:MAX_TYPE_NAME], inner[1][:MAX_DESCRIPTION])
        raise BadMessage("a value of unknown shape")

    def _remote(self, fn_id: int) -> Callable[..., Any]:
        def remote(*args: Any, **kwargs: Any) -> Any:
            return self.request(CallBack(t=CALL, fn=fn_id, args=list(args), kwargs=kwargs))

        remote.__name__ = remote.__qualname__ = f"remote_{fn_id}"
        return remote

    # -- framing ----------------------------------------------------------------------------------------
    def _bounded(self, deadline: float | None) -> float | None:
        """The deadline a wait or write must keep: its own, the enclosing call's (on this end, or on any guarded end
        of this thread: :func:`call_deadline`), or the guard's default."""
        for other in (self._deadline, call_deadline() if self._guard is not None else None):
            if other is not None and (deadline is None or other < deadline):
                deadline = other
        if deadline is None and self._guard is not None:
            return time.monotonic() + self._guard.timeout
        return deadline

    def send(self, message: Mapping[str, Any], deadline: float | None = None) -> None:
        """Write one message; on the grader's end, give up with :class:`ChannelTimeout` at the deadline."""
        self._send(message, self._bounded(deadline))

    def _send(self, message: Mapping[str, Any], deadline: float | None) -> None:
        """:meth:`send` with its deadline already bounded (inside :meth:`request`, the call's own)."""
        data = (_ENCODER.encode(message) + "\n").encode("utf-8")
        try:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self._wfd, view)
                except BlockingIOError:  # the grader's end writes without blocking: wait for room, up to the deadline
                    if deadline is None:
                        select.select([], [self._wfd], [])
                    else:
                        _wait_for(self._wfd, deadline, write=True)
                    continue
                view = view[written:]
        except (BrokenPipeError, OSError) as err:
            raise ChannelClosed(f"the other side closed the channel ({err})") from None

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        """Read one message; ``deadline`` is a ``time.monotonic()`` value after which we give up."""
        return self._receive(self._bounded(deadline))

    def _receive(self, deadline: float | None) -> dict[str, Any]:
        """:meth:`receive` with its deadline already bounded (inside :meth:`request`, the call's own)."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > self._max_bytes:
                raise BadMessage(f"a message larger than {self._max_bytes // 1024} KB")
            if deadline is not None:
                if self._guard is not None and time.monotonic() >= deadline:
                    raise ChannelTimeout("no answer in time")  # even if it is there: the call's time is spent
                # Wait first: a reply is rarely there yet when it is asked for, and a read that finds nothing (the
                # grader's end reads without blocking) costs a system call and an exception.
                _wait_for(self._rfd, deadline, write=False)
            try:
                chunk = os.read(self._rfd, 1 << 16)
            except BlockingIOError:  # woken with nothing to read after all: wait again
                if deadline is None:
                    select.select([self._rfd], [], [])
                continue
            except OSError as err:
                raise ChannelClosed(f"reading failed ({err})") from None
            if not chunk:
                raise ChannelClosed("the other side exited")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > self._max_bytes:
            raise BadMessage(f"a message larger than {self._max_bytes // 1024} KB")
        try:
            # Decoded as json.loads(bytes) would decode it, without sniffing the encoding of every message.
            message = _loads(line.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError) as err:
            raise BadMessage(f"an unreadable message ({type(err).__name__})") from None
        if not isinstance(message, dict) or not isinstance(message.get(TYPE), str):
            raise BadMessage("a message without a type")
        if self._guard is not None and not _plainly_within(line, self._guard):
            screen(message, self._guard)
        return message

    # -- calls ------------------------------------------------------------------------------------------
    def request(self, message: Mapping[str, Any], deadline: float | None = None) -> Any:
        """Send a call and wait for its reply, answering any calls the other side makes meanwhile.

        Callables among its ``args``, ``kwargs`` and ``swap`` (and any a nested call returns) are lent for
        this call only, and every wait inside it keeps its deadline (on the grader's end, the enclosing
        call's deadline too).
        """
        guard = self._guard
        if guard is not None and len(self._lent) >= guard.max_call_depth:
            raise CallDepthExceeded(
                f"calls between your code and the grader nested more than {guard.max_call_depth} deep (your function "
                "called a function the grader gave it, which called your function again, and so on); the grader "
                "stops there"
            )
        outer, thread_outer = self._deadline, call_deadline()
        self._deadline = deadline = self._bounded(deadline)
        self._lent.append([])
        if guard is not None:
            _in_call.deadline = deadline
        try:
            return self._exchange(message, deadline)
        finally:
            for fn_id in self._lent.pop():
                self._exports.pop(fn_id, None)
            self._deadline = outer
            if guard is not None:
                _in_call.deadline = thread_outer

    def _exchange(self, message: Mapping[str, Any], deadline: float | None) -> Any:
        self._next_id += 1
        call_id = self._next_id
        payload = dict(message, id=call_id)
        for key in ("args", "kwargs", "swap"):
            if key in payload:
                if payload[key]:
                    payload[key] = self.encode(payload[key])
                else:  # the other side reads a missing one as empty
                    del payload[key]
        self._send(payload, deadline)
        while True:
            reply = self._receive(deadline)
            kind = reply[TYPE]
            if kind == CALL:
                self.answer(reply)
            elif kind in (RETURN, RAISE) and type(reply.get("id")) is int and reply["id"] == call_id:  # not True
                if kind == RETURN:
                    return self.decode(reply.get("value"))
                raise RemoteError(
                    str(reply.get("type", "Error")), str(reply.get("message", "")), str(reply.get("traceback", ""))
                )
            else:
                self._handler(reply)  # a notice (e.g. which cell runs now); the handler decides what it means

    def answer(self, call: dict[str, Any]) -> None:
        """Run one incoming call and send back its result or the exception it raised.

        The grader's end sends only the exception's type name and its message with file paths removed:
        never a traceback, which would show the learner the hidden suites' paths and source.
        """
        call_id = call.get("id")
        if self._guard is not None and type(call_id) is not int:  # it is sent back: a nested one would not encode
            raise BadMessage("a call whose id is not a whole number")
        try:
            fn_id = call.get("fn")
            if type(fn_id) is int:
                fn = self._exports.get(fn_id)
                if fn is None:
                    raise LentFunctionExpired(
                        "this function was lent for one call only, and that call has returned; it cannot be called "
                        "any more (keep no grader function between calls)"
                        if 0 < fn_id <= self._next_id
                        else f"no function with id {fn_id}"
                    )
                args = self.decode(call.get("args") or [])
                kwargs = self.decode(call.get("kwargs") or {})
                if not isinstance(args, list) or not isinstance(kwargs, dict):
                    raise TypeError("malformed call")
                result = fn(*args, **kwargs)
            else:
                result = self._handler(call)
            value = self.encode(result)
            if self._guard is not None:
                check_size(value, self._max_bytes)
        except ChannelError:
            raise
        except Exception as err:  # reported to the caller, who decides what it means
            if self._guard is None:
                self.send(
                    Raise(
                        t=RAISE, id=call_id, type=type(err).__name__, message=_safe_str(err), traceback=_traceback(err)
                    )
                )
            else:
                self._expire()
                # A lent solution function's exception (raised in the lender's worker) crosses as what it was.
                name = err.type_name[:MAX_TYPE_NAME] if isinstance(err, RemoteError) else type(err).__name__
                message = err.message if isinstance(err, RemoteError) else _safe_str(err)
                self.send(Raise(t=RAISE, id=call_id, type=name, message=without_paths(message[:2000])))
            return
        self._expire()
        self.send(Return(t=RETURN, id=call_id, value=value))

    def _expire(self) -> None:
        """On the grader's end, time spent answering counts: past the call's deadline, stop (the learner's budget
        is spent)."""
        if self._guard is not None and self._deadline is not None and time.monotonic() > self._deadline:
            raise ChannelTimeout("no answer in time")


class AnswerTooLarge(ValueError):
    """What the grader would send back is larger than one message may be (its name crosses the channel)."""


def check_size(value: Any, max_bytes: int) -> None:
    """Refuse a JSON-ready ``value`` that would encode to more than ``max_bytes``, before it is encoded.

    Counts what its encoding must hold at least (a byte per character, item and separator), without recursion
    and stopping at the bound, so neither a huge text nor a huge list costs more than the bound to refuse.
    """
    if value is None or type(value) in (bool, int, float):
        return
    size = 0
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            size += len(node) + 2
        elif isinstance(node, (list, dict)):
            size += len(node) + 2
            pending.extend(node.values() if isinstance(node, dict) else node)
            if isinstance(node, dict):
                size += sum(len(k) + 3 for k in node)
        else:
            size += 1
        if size > max_bytes:
            raise AnswerTooLarge(
                f"the grader's answer to your call would be larger than {max_bytes // 1024} KB (your arguments made "
                "it that large); call it with smaller arguments"
            )


_DECODER = json.JSONDecoder()


def _loads(text: str) -> Any:
    """``json.loads(text)``: a line our own ends wrote is read without its two scans for surrounding whitespace."""
    try:
        value, end = _DECODER.raw_decode(text)
    except ValueError:
        return json.loads(text)  # leading whitespace, or the error json.loads raises
    return value if end == len(text) else json.loads(text)  # trailing whitespace, or "Extra data"


def _wait_for(fd: int, deadline: float, *, write: bool) -> None:
    """Until ``fd`` can be read (or written), or :class:`ChannelTimeout` at ``deadline``."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ChannelTimeout("no answer in time")
    ready = select.select([], [fd], [], remaining)[1] if write else select.select([fd], [], [], remaining)[0]
    if not ready:
        raise ChannelTimeout("no answer in time")


def _plainly_within(line: bytes, guard: Guard) -> bool:
    """Whether the raw line alone proves its message keeps ``guard``, so :func:`screen` need not walk it.

    Most messages are a few hundred bytes. Every value, dict entry and string character costs at least one
    byte of the line, and every callable reference its literal ``"$fn"`` key; an ASCII line without ``\\u``
    escapes can hold neither a lone surrogate (lines are decoded with ``surrogatepass``) nor a key
    spelled in escapes. Walking each message cost ~20 us.
    """
    return (
        len(line) <= min(guard.max_items, guard.max_chars)
        and line.isascii()
        and b"\\u" not in line
        and line.count(_FN_QUOTED) <= guard.max_refs
    )


def screen(message: dict[str, Any], guard: Guard) -> None:
    """Check a received message against ``guard`` before any work is done on it, and make its text valid UTF-8.

    Counts every list item and dict entry, every callable reference and every string's length (without
    recursion, so depth costs nothing here; :meth:`Endpoint.decode` refuses deep values), and replaces lone
    surrogates (``"\\udcff"``, which JSON can carry and UTF-8 cannot) in place, keys included.
    """
    items = refs = 0
    pending: list[dict[str, Any] | list[Any]] = [message]
    while pending:
        node = pending.pop()
        items += len(node)
        if items > guard.max_items:
            raise BadMessage(f"more than {guard.max_items} values in one message")
        if isinstance(node, dict):
            if len(node) == 1 and type(node.get(FN_KEY)) is int:
                refs += 1
                if refs > guard.max_refs:
                    raise BadMessage(f"more than {guard.max_refs} functions in one message")
            if not all(k.isascii() and len(k) <= guard.max_chars for k in node):
                fixed = {_text(k, guard): v for k, v in node.items()}
                node.clear()
                node.update(fixed)
            slots: Any = node.items()
        else:
            slots = enumerate(node)
        for slot, value in list(slots):
            if isinstance(value, str):
                node[slot] = _text(value, guard)
            elif isinstance(value, (list, dict)):
                pending.append(value)


def _text(text: str, guard: Guard) -> str:
    """``text`` if it is valid UTF-8 and short enough; lone surrogates become U+FFFD; too long is refused."""
    if len(text) > guard.max_chars:
        raise BadMessage(f"a text longer than {guard.max_chars} characters")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # through UTF-16, a pair of surrogates becomes its character and a lone one U+FFFD
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


_PATH = re.compile(r"(?<![\w./~-])(?:~|\.{1,2})?/[^\s'\"`:,;()\[\]{}<>]+")


def without_paths(text: str) -> str:
    """``text`` with every file path in it (``/x/y``, ``./y``, ``~/y``) replaced by ``<path>``."""
    return _PATH.sub("<path>", text)


def to_plain(value: Any, export: Callable[[Callable[..., Any]], Any], *, wire: bool = False) -> Any:
    """A copy of ``value`` made only of plain data with its type kept (see the module docstring).

    Callables are passed to ``export``, whose answer takes their place. With ``wire`` the copy is JSON-ready:
    tuples, dicts and :class:`Opaque` values become the tags :meth:`Endpoint.decode` reads back.
    """
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float or kind is str:
        return value
    if kind is FunctionType:  # a stand-in or a recording callback, on most calls that lend one: no other test
        return export(value)
    if isinstance(value, (int, float, str)):
        return _plain_scalar(value)
    scalars = SCALARS  # an item of exactly one of these types is its own copy: no call for it (a long prompt)
    if isinstance(value, list):
        return [v if type(v) in scalars else to_plain(v, export, wire=wire) for v in list.__iter__(value)]
    if isinstance(value, tuple):
        items = [v if type(v) in scalars else to_plain(v, export, wire=wire) for v in tuple.__iter__(value)]
        return {TUPLE_KEY: items} if wire else tuple(items)
    if isinstance(value, dict) and all(isinstance(k, str) for k in dict.keys(value)):
        plain = {
            k if type(k) is str else _plain_scalar(k): v if type(v) in scalars else to_plain(v, export, wire=wire)
            for k, v in dict.items(value)
        }
        return {DICT_KEY: plain} if wire else plain
    number = _numpy_scalar(value)
    if number is not None:
        return number
    if isinstance(value, Opaque):
        opaque = Opaque(str.__str__(value.type_name)[:MAX_TYPE_NAME], str.__str__(value.text)[:MAX_DESCRIPTION])
    elif callable(value):
        return export(value)
    else:
        opaque = describe(value)
    return {OPAQUE_KEY: [opaque.type_name, opaque.text]} if wire else opaque


def _plain_scalar(value: Any) -> Any:
    """The plain value inside a subclass of int/float/str, read through the base type's own slot."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return int.__int__(value)


def _numpy_scalar(value: Any) -> bool | int | float | None:
    """The Python bool, int or float a numpy scalar holds; None for anything else (numpy is never imported here)."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    if isinstance(value, numpy.bool_):
        return bool(value)
    if isinstance(value, numpy.integer):
        return int.__int__(int(value))
    if isinstance(value, numpy.floating):
        return float.__float__(float(value))
    return None


_COUNTED = ("set", "frozenset", "bytes", "bytearray", "range", "collections.deque")


def describe(value: Any) -> Opaque:
    """An :class:`Opaque` for a value that is not plain data, from its type alone (and its size or shape)."""
    kind = type(value)
    try:
        module, name = str(kind.__module__), str(kind.__qualname__)
    except Exception:  # a metaclass may refuse; the value is still only described
        module, name = "", "object"
    type_name = name if module in ("builtins", "__main__", "") else f"{module}.{name}"
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.ndarray):
        text = f"a numpy array of shape {tuple(int(n) for n in value.shape)} and dtype {value.dtype}"
    elif isinstance(value, dict):
        text = f"a dict with keys that are not all strings ({_items(dict.__len__(value))})"
    elif type_name in _COUNTED:
        text = f"{_article(type_name)} {type_name} of {_items(len(value))}"
    elif module == "builtins":
        text = f"{_article(type_name)} {type_name}"
    else:
        text = f"an object of type {type_name}"
    return Opaque(type_name[:MAX_TYPE_NAME], text[:MAX_DESCRIPTION])


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _items(count: int) -> str:
    return f"{count} item{'' if count == 1 else 's'}"


def _safe_str(err: BaseException) -> str:
    try:
        return str(err)[:2000]
    except Exception:
        return "<unprintable message>"


def _traceback(err: BaseException) -> str:
    """The worker's traceback of ``err`` without this module's frames, so its last line is the learner's own."""
    import traceback

    try:
        summary = traceback.TracebackException.from_exception(err)
        summary.stack = traceback.StackSummary.from_list([f for f in summary.stack if f.filename != __file__])
        return "".join(summary.format())[-4000:]
    except Exception:
        return ""
