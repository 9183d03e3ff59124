"""A :class:`grader.testing.Target` over a live namespace in this process, with the grader's per-call time limit.

Self-check runs the learner's answers this way, in their own kernel; the suites prime their example records by
running the reference solution this way (no worker: the lesson's own code is trusted); tests and the bench's
in-process floor use it to run suites without a worker.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from grader.config import DEFAULT_LIMITS, TimeBudget
from grader.execute.calls import CallsClock, ResultIdentity, changed_arguments, plain_copy, stood_in
from grader.execute.protocol import ChannelTimeout, RemoteError, Returned


class _Stop(BaseException):
    """Raised inside a learner call that ran past its time limit (see :class:`_Deadline`)."""


class _Deadline:
    """Stops the calling thread's learner call after ``seconds`` by raising :class:`_Stop` in that thread.

    A worker process can be killed; a kernel thread cannot, so this is the in-kernel stand-in for the
    grader's per-call time limit: a loop that never ends costs its own question, as in ``grade``, instead of
    hanging every check after it. It stops Python code (the common ``while True`` loop), not a blocking C
    call. The exception is raised again every ``retry`` seconds in case learner code catches it.

    Deadlines are watched by one long-lived thread (:class:`_Watchdog`): a timer thread per call cost more
    than most of the calls it guarded (a check makes hundreds).
    """

    def __init__(self, seconds: float, retry: float = 0.5) -> None:
        self._thread_id = threading.get_ident()
        self._retry = retry
        self.fired = False
        self.due = time.monotonic() + seconds
        _WATCHDOG.arm(self)

    def _fire(self) -> None:
        """Called by the watchdog, holding its lock, once the deadline has passed (and every ``retry`` after)."""
        self.fired = True
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id), ctypes.py_object(_Stop))
        self.due = time.monotonic() + self._retry

    def disarm(self) -> bool:
        """Stop watching, drop a stop not yet delivered, and say whether the deadline passed."""
        while True:
            try:
                with _WATCHDOG.lock:
                    _WATCHDOG.drop(self)
                    if self.fired:
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id), None)
                return self.fired
            except _Stop:  # delivered while disarming: it still counts as a timeout
                self.fired = True


class _Watchdog:
    """One daemon thread that fires every armed :class:`_Deadline` when it is due.

    It sleeps until the earliest deadline and is woken only when a deadline earlier than that is armed, so
    a call costs a lock, not a thread. Started on first use, and again in a forked child.
    """

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self._armed: dict[int, _Deadline] = {}
        self._waking_at: float | None = None
        self._pid = 0

    def arm(self, deadline: _Deadline) -> None:
        with self.lock:
            if self._pid != os.getpid():
                self._pid, self._armed, self._waking_at = os.getpid(), {}, None
                threading.Thread(target=self._watch, name="self-check-deadlines", daemon=True).start()
            self._armed[id(deadline)] = deadline
            if self._waking_at is None or deadline.due < self._waking_at:
                self.lock.notify()

    def drop(self, deadline: _Deadline) -> None:
        """Forget ``deadline``; the caller holds :attr:`lock`."""
        self._armed.pop(id(deadline), None)

    def _watch(self) -> None:
        with self.lock:
            while True:
                now = time.monotonic()
                for deadline in [d for d in self._armed.values() if d.due <= now]:
                    deadline._fire()
                self._waking_at = min((d.due for d in self._armed.values()), default=None)
                self.lock.wait(None if self._waking_at is None else self._waking_at - now)


_WATCHDOG = _Watchdog()


def _copy(value: Any) -> Any:
    """A plain-data copy (callables kept as they are), so self-check treats arguments as grading does."""
    return plain_copy(value)


class NamespaceTarget:
    """A :class:`grader.testing.Target` over a live namespace; values cross as plain copies, as in grading.

    Each call has the per-call time limit of ``budget`` (the grader's limits' :class:`TimeBudget`, the defaults
    unless given), and all the calls made through one target share its budget for calls, as one notebook's do
    in grading (:class:`CallsClock`): a call that runs past either is reported as the worker reports it, as a
    :class:`ChannelTimeout` or a :class:`CallsBudgetSpent`. So one target is one grading's worth of calls
    (self-check makes one per ``check``).
    """

    def __init__(self, namespace: dict[str, Any], budget: TimeBudget = DEFAULT_LIMITS.budget) -> None:
        self._ns = namespace
        self.budget = budget
        self._results = ResultIdentity()
        self._clock = CallsClock(budget)

    def lent(self, name: str) -> None:
        """None: self-check lends the reference's own functions (the learner's machine, the learner's time)."""
        return None

    def reached(self, name: str) -> None:
        """None: a live namespace's code is not read; every earlier question's stand-in is sent with each call."""
        return None

    def _lookup(self, name: str) -> Any:
        if name not in self._ns:
            raise RemoteError("NotDefined", name)
        return self._ns[name]

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        fn = self._lookup(name)
        seconds, limited = self._clock.allowed()  # limited: this call's deadline is the budget's end
        started = time.monotonic()
        deadline = _Deadline(seconds)
        try:
            try:
                given_args, given_kwargs = _copy(args), _copy(kwargs)  # copies, as across the channel
                with stood_in(self._ns, swaps):
                    result = fn(*given_args, **given_kwargs)
            finally:
                timed_out = deadline.disarm()
                self._clock.took(name, time.monotonic() - started)
            if timed_out:
                raise _Stop
            changed = changed_arguments(given_args, given_kwargs, args, kwargs)
            same_as = self._results.same_as(result, given_args, given_kwargs)
            return Returned(plain_copy(result), tuple(changed), same_as)
        except _Stop:
            raise (self._clock.spent() if limited else ChannelTimeout("no answer in time")) from None
        except Exception as err:
            raise RemoteError(type(err).__name__, str(err), traceback.format_exc()) from None

    def value(self, name: str) -> Any:
        try:
            return plain_copy(self._lookup(name))
        except TypeError as err:
            raise RemoteError("TypeError", str(err)) from None
