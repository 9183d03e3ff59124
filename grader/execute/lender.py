"""Lent solution functions run in a worker of their own: the trusted side's work per learner call is bounded.

So that one bug costs once, a hidden test lends the learner's code the lesson's reference functions of the
earlier questions (:meth:`grader.testing.Learner.call`). Learner code chooses their arguments, and instructors
write them as they like: a loop ``n`` times, a string built from an argument, a recursion. Run in the grading
process, ``kv_decode_time(6_000_000, ...)`` spun it for a minute and ``"x" * 60000 * 15000`` took gigabytes.

A :class:`Lender` runs them instead in a *lender's worker*: a :class:`LearnerProcess` that has executed the
lesson's solution notebook (no learner code ever runs in it), under the same sandbox, memory, CPU and
process limits as a learner's worker. Each lent call is a request over its channel, whose deadline is the
learner call's own (:func:`grader.execute.channel.call_deadline`); at that deadline the lender's worker is killed
and a fresh one is started before the next call that needs it, outside any call's time; when that next call is
inside the same learner call (its arguments killed the last one), the start waits within that call's deadline,
and running out of it is that call's timeout, never the machine's failure. What comes back is
read as a worker's answer is (at most ``max_message_kb``, counted before anything is built), so whatever the
arguments, the grading process spends at most the call's time limit and a few times the message size on it.

The lender's worker runs :mod:`grader.execute.lender_main`: the solution's cells with ``exec``, as the trusted
reference runs them (no IPython: it boots in a fifth of a learner's worker's CPU time), then one forked child per
learner. A :class:`Lenders` pool keeps one lender per notebook graded at once, warm between notebooks, as the
runner keeps zygotes; before a learner after one whose calls reached the lender's worker, :meth:`Lender.ready`
asks it for a fresh child (:meth:`LearnerProcess.renew`, a fork: milliseconds), so nothing one learner's
arguments did there (a cache filled, a global changed, CPU seconds counted against its limit) is seen by the next.

Results of calls whose arguments hold no function are kept (:data:`KEPT_RESULTS`, small ones only): the
same hidden tests on the next notebook ask the same questions, and a lent solution function is taken to be a
function of its arguments (SECURITY.md, "What is not defended"). So most notebooks never reach the lender's worker.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from grader.config import Limits, WorkerMode
from grader.errors import GraderError, MachineFailed
from grader.execute.channel import DICT_KEY, TUPLE_KEY, to_plain
from grader.execute.process import Kept
from grader.execute.protocol import ChannelClosed, ChannelError, ChannelTimeout
from grader.execute.sandbox import LENDER_PROGRAM
from grader.execute.worker import LearnerProcess
from grader.model import Submission

#: Results a lender keeps, per lender: enough for every lent call a lesson's hidden tests make on one notebook.
KEPT_RESULTS = 4096
#: Longest encoded arguments, and result, a lender keeps a result for (the rest are asked every time).
KEPT_CHARS = 512
#: Solutions whose idle lenders a pool keeps warm, the last asked for: a process grading several lessons in turn
#: (``grade class``, the daemon) kept a lender's worker (~19 MB) for every lesson it had graded.
WARM_SOLUTIONS = 2


class LentFunctionFailed(RuntimeError):
    """A lent solution function could not answer these arguments (its worker died or its answer was too large);
    its name crosses the channel to the learner's code."""


class Lender:
    """The solution functions of one lesson, run in a worker of their own for learner calls (see the module)."""

    def __init__(self, solution: Submission, limits: Limits, mode: WorkerMode) -> None:
        self.solution = solution
        self._limits, self._mode = limits, mode
        self._worker: LearnerProcess | None = None
        self._keeper: Kept[LearnerProcess] | None = None
        """The thread that spawned ``_worker``, released once it is closed (:class:`grader.execute.process.Kept`)."""
        self._booted = False
        self._asked = False
        """Whether a call reached the lender's worker since its child was fresh."""
        self._renew = False
        """Whether a new learner is to be served by a fresh child before its first call."""
        self._kept: OrderedDict[str, Any] = OrderedDict()
        self.fault: str | None = None
        """Why the lender could not serve this learner's notebook (the machine's failure, never the learner's):
        the notebook is then not graded (``pipeline.grade_submission``); reset for each learner."""

    @property
    def warm(self) -> bool:
        """Whether its worker has run the solution: :meth:`ready` starts none (it may still fork a fresh child)."""
        return self._booted

    def boot(self) -> None:
        """Start the lender's worker now if there is none alive, so it boots meanwhile; :meth:`ready` waits for it.
        Once per notebook (asking whether it lives is a system call)."""
        if self._worker is not None and not self._worker.alive:
            self.close()
        if self._worker is None:
            self._keeper = Kept(  # kept warm beyond the thread that asks (the daemon's)
                lambda: LearnerProcess(self.solution, self._limits, self._mode, program=LENDER_PROGRAM), "grader-lender"
            )
            self._worker = self._keeper.get()

    def next_learner(self) -> None:
        """A new learner's calls come next: none of them may see what an earlier learner's did in the worker."""
        self._renew = self._renew or self._asked
        self._asked = False
        self.fault = None

    def ready(self) -> None:
        """Have a lender's worker that has run the solution, fresh for this learner: before a learner call that
        lends, outside its time."""
        if self._booted and self._renew:
            assert self._worker is not None
            try:
                self._worker.renew()
            except ChannelError:
                self.close()  # a new one boots below
        self._renew = False
        if self._booted:
            return
        self.boot()
        assert self._worker is not None
        try:
            self._worker.run_notebook()
        except ChannelTimeout:
            self.close()  # the learner call it boots within ran out of time: that call fails, not the machine
            raise
        except GraderError as err:
            self.close()
            why = f"the grader could not run the lesson's solution to lend its functions ({err})"
            if isinstance(err, MachineFailed):  # the machine's failure only: a worker that did not start
                self.fault = self.fault or why
            raise ChannelClosed(why) from None
        self._booted = True

    def function(self, name: str) -> Callable[..., Any]:
        """The solution's ``name``, to lend: each call is asked of the lender's worker."""

        def lent(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, list(args), kwargs)

        lent.__name__ = lent.__qualname__ = name
        return lent

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """``name(*args, **kwargs)`` in the lender's worker, within the deadline of the learner call it serves."""
        key = _key(name, args, kwargs)
        if key is not None and key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        self.ready()
        assert self._worker is not None
        self._asked = True
        try:
            value = self._worker.call(name, args, kwargs, {}).value
        except ChannelTimeout:
            self.close()  # killed at the deadline; the next call that needs it starts a fresh one
            raise
        except ChannelError as err:
            self.close()
            raise LentFunctionFailed(f"the grader's {name} could not answer these arguments ({err})") from None
        if key is not None and _small(value):
            self._kept[key] = value
            if len(self._kept) > KEPT_RESULTS:
                self._kept.popitem(last=False)
        return value

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None
            self._booted = self._asked = False
        if self._keeper is not None:
            self._keeper.release()
            self._keeper = None


def _key(name: str, args: list[Any], kwargs: dict[str, Any]) -> str | None:
    """The arguments as their wire encoding, if they hold no function and are short; else None (not kept)."""
    functions: list[object] = []
    plain = to_plain([name, args, kwargs], lambda f: functions.append(f), wire=True)
    if functions:
        return None
    try:
        text = json.dumps(plain, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):
        return None
    return text if len(text) <= KEPT_CHARS else None


def _small(value: Any) -> bool:
    """Whether ``value`` is worth keeping: a scalar, or a short text or container of scalars."""
    plain = to_plain(value, lambda f: None, wire=True)
    if isinstance(plain, dict) and len(plain) == 1 and (TUPLE_KEY in plain or DICT_KEY in plain):
        return False if DICT_KEY in plain else _scalars(plain[TUPLE_KEY])
    if isinstance(plain, list):
        return _scalars(plain)
    return plain is None or type(plain) in (bool, int, float) or (type(plain) is str and len(plain) <= KEPT_CHARS)


def _scalars(items: list[Any]) -> bool:
    return len(items) <= 16 and all(v is None or type(v) in (bool, int, float) for v in items)


class Lenders:
    """Lenders kept warm between notebooks: one per notebook graded at once and per solution, as zygotes are, for
    the :data:`WARM_SOLUTIONS` solutions asked for last."""

    def __init__(self, limits: Limits, mode: WorkerMode) -> None:
        self._limits, self._mode = limits, mode
        self._lock = threading.Lock()
        self._idle: list[Lender] = []
        self._all: list[Lender] = []
        self._recent: list[Submission] = []
        """The solutions asked for, the last asked last: their idle lenders are kept."""

    def take(self, solution: Submission) -> Lender:
        """A lender of ``solution``'s functions that only the caller (one learner's notebook) uses until it
        :meth:`give`\\ s it back. Its worker is spawned, never forked from a notebook's zygote: the zygote's sweep
        after each learner would end it, and it would share that learner's sandbox. Idle lenders of a solution no
        longer among the last :data:`WARM_SOLUTIONS` asked for are closed."""
        with self._lock:
            found = next((x for x in self._idle if x.solution == solution), None)
            if found is not None:
                self._idle.remove(found)
            else:
                found = Lender(solution, self._limits, self._mode)
                self._all.append(found)
            if solution in self._recent:
                self._recent.remove(solution)
            self._recent = [*self._recent, solution][-WARM_SOLUTIONS:]
            cold = [x for x in self._idle if x.solution not in self._recent]
            for lender in cold:
                self._idle.remove(lender)
                self._all.remove(lender)
        for lender in cold:
            try:
                lender.close()
            except Exception:  # not this learner's to pay for: the pool's own close tries again, after grading
                with self._lock:
                    self._all.append(lender)
        found.next_learner()
        found.boot()
        return found

    def give(self, lender: Lender) -> None:
        with self._lock:
            self._idle.append(lender)

    def close(self) -> None:
        with self._lock:
            for lender in self._all:
                lender.close()
            self._all.clear()
            self._idle.clear()
