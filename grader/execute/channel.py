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
runs it inside the sandbox.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from typing import Any, Callable, Mapping

from grader.execute.protocol import CALL, RAISE, RETURN, TYPE, BadMessage, CallBack, ChannelClosed, ChannelError, ChannelTimeout, Opaque, Raise, RemoteError, Return

FN_KEY = "$fn"
TUPLE_KEY = "$t"
DICT_KEY = "$d"
OPAQUE_KEY = "$o"
MAX_DEPTH = 64
MAX_TYPE_NAME = 100
MAX_DESCRIPTION = 200


Handler = Callable[[dict[str, Any]], Any]


class Endpoint:
    """One end of the channel: send requests, answer the other side's calls while waiting for replies."""

    def __init__(self, rfd: int, wfd: int, handler: Handler, *, max_bytes: int = 1 << 20) -> None:
        self._rfd = rfd
        self._wfd = wfd
        self._handler = handler
        self._max_bytes = max_bytes
        self._buffer = b""
        self._next_id = 0
        self._exports: dict[int, Callable[..., Any]] = {}

    # -- encoding -----------------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        """Make ``value`` JSON-ready (see the module's wire format); callables become references to call back."""
        return to_plain(value, self._export, wire=True)

    def _export(self, fn: Callable[..., Any]) -> Any:
        self._next_id += 1
        self._exports[self._next_id] = fn
        return {FN_KEY: self._next_id}

    def decode(self, value: Any, depth: int = 0) -> Any:
        """Check a received value's shape, rebuild tuples, dicts and :class:`Opaque` values from their tags,
        and turn callable references into callable proxies. An empty JSON object reads as an empty dict."""
        if depth > MAX_DEPTH:
            raise BadMessage(f"a value nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, list):
            return [self.decode(v, depth + 1) for v in value]
        if not isinstance(value, dict):
            return value
        if not value:
            return {}
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag == TUPLE_KEY and isinstance(inner, list):
                return tuple(self.decode(v, depth + 1) for v in inner)
            if tag == DICT_KEY and isinstance(inner, dict):
                return {k: self.decode(v, depth + 1) for k, v in inner.items()}
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
    def send(self, message: Mapping[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._wfd, view)
                view = view[written:]
        except (BrokenPipeError, OSError) as err:
            raise ChannelClosed(f"the other side closed the channel ({err})") from None

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        """Read one message; ``deadline`` is a ``time.monotonic()`` value after which we give up."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > self._max_bytes:
                raise BadMessage(f"a message larger than {self._max_bytes // 1024} KB")
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChannelTimeout("no answer in time")
                ready, _, _ = select.select([self._rfd], [], [], remaining)
                if not ready:
                    raise ChannelTimeout("no answer in time")
            try:
                chunk = os.read(self._rfd, 1 << 16)
            except OSError as err:
                raise ChannelClosed(f"reading failed ({err})") from None
            if not chunk:
                raise ChannelClosed("the other side exited")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > self._max_bytes:
            raise BadMessage(f"a message larger than {self._max_bytes // 1024} KB")
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as err:
            raise BadMessage(f"an unreadable message ({type(err).__name__})") from None
        if not isinstance(message, dict) or not isinstance(message.get(TYPE), str):
            raise BadMessage("a message without a type")
        return message

    # -- calls ------------------------------------------------------------------------------------------
    def request(self, message: Mapping[str, Any], deadline: float | None = None) -> Any:
        """Send a call and wait for its reply, answering any calls the other side makes meanwhile."""
        self._next_id += 1
        call_id = self._next_id
        payload = dict(message, id=call_id)
        if "args" in payload:
            payload["args"] = self.encode(payload["args"])
        if "kwargs" in payload:
            payload["kwargs"] = self.encode(payload["kwargs"])
        self.send(payload)
        while True:
            reply = self.receive(deadline)
            kind = reply[TYPE]
            if kind == CALL:
                self.answer(reply)
            elif kind in (RETURN, RAISE) and reply.get("id") == call_id:
                if kind == RETURN:
                    return self.decode(reply.get("value"))
                raise RemoteError(str(reply.get("type", "Error")), str(reply.get("message", "")), str(reply.get("traceback", "")))
            else:
                self._handler(reply)  # a notice (e.g. which cell runs now); the handler decides what it means

    def answer(self, call: dict[str, Any]) -> None:
        """Run one incoming call and send back its result or the exception it raised."""
        call_id = call.get("id")
        try:
            fn_id = call.get("fn")
            if type(fn_id) is int:
                fn = self._exports.get(fn_id)
                if fn is None:
                    raise LookupError(f"no callable with id {fn_id}")
                args = self.decode(call.get("args") or [])
                kwargs = self.decode(call.get("kwargs") or {})
                if not isinstance(args, list) or not isinstance(kwargs, dict):
                    raise TypeError("malformed call")
                result = fn(*args, **kwargs)
            else:
                result = self._handler(call)
            value = self.encode(result)
        except ChannelError:
            raise
        except Exception as err:  # reported to the caller, who decides what it means
            self.send(Raise(t=RAISE, id=call_id, type=type(err).__name__, message=_safe_str(err), traceback=_traceback(err)))
            return
        self.send(Return(t=RETURN, id=call_id, value=value))


def to_plain(value: Any, export: Callable[[Callable[..., Any]], Any], *, wire: bool = False) -> Any:
    """A copy of ``value`` made only of plain data with its type kept (see the module docstring).

    Callables are passed to ``export``, whose answer takes their place. With ``wire`` the copy is JSON-ready:
    tuples, dicts and :class:`Opaque` values become the tags :meth:`Endpoint.decode` reads back.
    """
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float or kind is str:
        return value
    if isinstance(value, (int, float, str)):
        return _plain_scalar(value)
    if isinstance(value, list):
        return [to_plain(v, export, wire=wire) for v in list.__iter__(value)]
    if isinstance(value, tuple):
        items = [to_plain(v, export, wire=wire) for v in tuple.__iter__(value)]
        return {TUPLE_KEY: items} if wire else tuple(items)
    if isinstance(value, dict) and all(isinstance(k, str) for k in dict.keys(value)):
        plain = {_plain_scalar(k): to_plain(v, export, wire=wire) for k, v in dict.items(value)}
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
    import traceback

    try:
        return "".join(traceback.format_exception(type(err), err, err.__traceback__))[-4000:]
    except Exception:
        return ""
