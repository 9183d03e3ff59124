"""The narrow channel between the trusted grader and the learner's worker process.

Messages are JSON lines over a pair of pipes, so only plain data crosses: numbers, strings, booleans, None,
lists and dicts. Nothing is ever unpickled, so an object with a forged ``__eq__`` cannot reach a test; a
float subclass arrives as the plain float it really holds.

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
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

FN_KEY = "$fn"
MAX_DEPTH = 64


class ChannelError(BaseException):
    """The channel failed: the other side died, hung, or sent something unreadable.

    It derives from BaseException (like pytest's outcomes) so that learner code and test frameworks that
    catch ``Exception`` cannot swallow it and carry on as if the call had returned.
    """


class ChannelClosed(ChannelError):
    """The other side went away (it exited or crashed)."""


class ChannelTimeout(ChannelError):
    """No answer came within the time allowed."""


class BadMessage(ChannelError):
    """The other side sent something that is not a valid message (too big, too deep, not JSON)."""


class RemoteError(Exception):
    """The function called on the other side raised; ``type_name`` and ``message`` describe what it raised."""

    def __init__(self, type_name: str, message: str, traceback: str = "") -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name = type_name
        self.message = message
        self.traceback = traceback


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
        """Make ``value`` JSON-ready; callables become references the other side can call back."""
        return to_plain(value, self._export)

    def _export(self, fn: Callable[..., Any]) -> Any:
        self._next_id += 1
        self._exports[self._next_id] = fn
        return {FN_KEY: self._next_id}

    def decode(self, value: Any, depth: int = 0) -> Any:
        """Check a received value's shape and turn callable references into callable proxies."""
        if depth > MAX_DEPTH:
            raise BadMessage(f"a value nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, list):
            return [self.decode(v, depth + 1) for v in value]
        if isinstance(value, dict):
            if len(value) == 1 and FN_KEY in value and type(value[FN_KEY]) is int:
                return self._remote(value[FN_KEY])
            return {k: self.decode(v, depth + 1) for k, v in value.items()}
        return value

    def _remote(self, fn_id: int) -> Callable[..., Any]:
        def remote(*args: Any, **kwargs: Any) -> Any:
            return self.request({"t": "call", "fn": fn_id, "args": list(args), "kwargs": kwargs})

        remote.__name__ = remote.__qualname__ = f"remote_{fn_id}"
        return remote

    # -- framing ----------------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
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
        if not isinstance(message, dict) or not isinstance(message.get("t"), str):
            raise BadMessage("a message without a type")
        return message

    # -- calls ------------------------------------------------------------------------------------------
    def request(self, message: dict[str, Any], deadline: float | None = None) -> Any:
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
            kind = reply["t"]
            if kind == "call":
                self.answer(reply)
            elif kind in ("return", "raise") and reply.get("id") == call_id:
                if kind == "return":
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
            self.send({"t": "raise", "id": call_id, "type": type(err).__name__, "message": _safe_str(err), "traceback": _traceback(err)})
            return
        self.send({"t": "return", "id": call_id, "value": value})


_NOT_PLAIN = object()


def to_plain(value: Any, export: Callable[[Callable[..., Any]], Any]) -> Any:
    """A copy of ``value`` made only of plain data; callables are passed to ``export``; anything else is refused."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (int, float, str)):
        return _plain_scalar(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v, export) for v in value]
    if isinstance(value, dict):
        return {_plain_key(k): to_plain(v, export) for k, v in value.items()}
    if callable(value):
        return export(value)
    converted = _numpy_to_plain(value)
    if converted is not _NOT_PLAIN:
        return converted
    raise TypeError(f"a value of type {type(value).__name__} cannot be graded; use plain numbers, strings, lists or dicts")


def _plain_scalar(value: Any) -> Any:
    """The plain value inside a subclass of int/float/str, read through the base type's own slot."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return int.__int__(value)


def _plain_key(key: Any) -> str:
    if type(key) is str:
        return key
    if type(key) in (int, float, bool) or key is None:
        return json.dumps(key)
    raise TypeError(f"a dict key of type {type(key).__name__} cannot be graded; use string keys")


def _numpy_to_plain(value: Any) -> Any:
    module = type(value).__module__ or ""
    if module.startswith("numpy") and hasattr(value, "tolist"):
        return value.tolist()
    return _NOT_PLAIN


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


# -- shared by both ends of a learner call (the worker, and self-check's in-kernel target) ----------------------


@contextmanager
def stood_in(namespace: dict[str, Any], replacements: dict[str, Any]) -> Iterator[None]:
    """Put ``replacements`` into ``namespace`` for the duration of one call, then restore what was there."""
    missing = object()
    saved = {name: namespace.get(name, missing) for name in replacements}
    namespace.update(replacements)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = old


def changed_arguments(args: list[Any], kwargs: dict[str, Any], args_before: list[Any], kwargs_before: dict[str, Any]) -> list[str]:
    """Which arguments a call modified in place (positions as "0", "1", ...; keywords by name).

    Arguments reach learner code as copies, so a function that changes the caller's list (a mutated prompt)
    would otherwise go unseen; the grader turns this into feedback.
    """
    changed = [str(i) for i, (now, then) in enumerate(zip(args, args_before)) if not _equal(now, then)]
    return changed + [k for k in kwargs if not _equal(kwargs[k], kwargs_before.get(k))]


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False
