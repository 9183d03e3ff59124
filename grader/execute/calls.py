"""What one call of a learner function means, wherever it runs: in a worker, or in self-check's kernel.

The worker (:mod:`grader.execute.worker_main`) and self-check's in-kernel target (:mod:`grader.selfcheck`)
both run a learner's calls with these, so a call means the same in both: stand-ins put in place for the call
only, the arguments it changed in place, and whether it handed back an object the caller already holds.
They fill the ``changed`` and ``same_as`` fields of :class:`grader.execute.protocol.CallReply`.

Standard library only: the worker imports it inside the sandbox, and self-check on a learner's machine.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from grader.execute.channel import SCALARS, to_plain
from grader.execute.protocol import CallsBudgetSpent

if TYPE_CHECKING:
    from grader.config import TimeBudget

#: How many earlier results a learner's process keeps, to say when a call hands back one of them again.
EARLIER_RESULTS_KEPT = 64


def plain_copy(value: Any) -> Any:
    """A copy of ``value`` made of plain data, as it would cross the channel (callables stay as they are)."""
    return to_plain(value, export=lambda f: f)


def snapshot(value: Any) -> Any:
    """A copy of ``value``'s lists, tuples and dicts, all levels down, to compare with after a call.

    What a worker receives is plain data (lists, tuples, dicts, scalars, :class:`Opaque` descriptions and
    callable proxies): only the containers can change in place, so only they are copied (``copy.deepcopy``
    cost several times as much, on every call).
    """
    kind = type(value)
    if kind is list:
        return [v if type(v) in SCALARS else snapshot(v) for v in value]
    if kind is tuple:
        return tuple([v if type(v) in SCALARS else snapshot(v) for v in value])
    if kind is dict:
        return {k: v if type(v) in SCALARS else snapshot(v) for k, v in value.items()}
    return value


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


def changed_arguments(
    args: list[Any], kwargs: dict[str, Any], args_before: list[Any], kwargs_before: dict[str, Any]
) -> list[str]:
    """Which arguments a call modified in place (positions as "0", "1", ...; keywords by name).

    Arguments reach learner code as copies, so a function that changes the caller's list (a mutated prompt)
    would otherwise go unseen; the grader turns this into feedback.
    """
    changed = [str(i) for i, (now, then) in enumerate(zip(args, args_before, strict=False)) if not _equal(now, then)]
    return changed + [k for k in kwargs if not _equal(kwargs[k], kwargs_before.get(k))]


def _equal(a: Any, b: Any) -> bool:
    if a is b:  # a float NaN is not == itself, and was never changed by the call
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


_IMMUTABLE = (bool, int, float, complex, str, bytes, tuple, frozenset)


class ResultIdentity:
    """Says when a call hands back an object the caller already holds: one of its arguments, or what an
    earlier call returned (a buffer reused across calls). Kept by whoever runs the learner's calls.

    Immutable values (None, numbers, strings, bytes, tuples, frozensets) are never reported: handing one back
    again is harmless, and Python shares them freely (small ints, constants). The last
    ``EARLIER_RESULTS_KEPT`` results are held alive, so an id cannot be reused.
    """

    def __init__(self) -> None:
        self._earlier: OrderedDict[int, Any] = OrderedDict()

    def same_as(self, result: Any, args: list[Any], kwargs: dict[str, Any]) -> str | None:
        if result is None or isinstance(result, _IMMUTABLE):
            return None
        same = next((f"argument {i}" for i, arg in enumerate(args) if arg is result), None)
        same = same or next((f"argument {name}" for name, arg in kwargs.items() if arg is result), None)
        if same is None and self._earlier.get(id(result)) is result:
            same = "an earlier result"
        self._earlier[id(result)] = result
        self._earlier.move_to_end(id(result))
        while len(self._earlier) > EARLIER_RESULTS_KEPT:
            self._earlier.popitem(last=False)
        return same


class CallsClock:
    """One notebook's budget for the hidden tests' calls to its functions (:attr:`TimeBudget.calls`), kept by
    whoever makes the calls: the grading process (``execute/target.py``) and self-check's kernel
    (``suites/namespace.py``), so a notebook whose every function sleeps just under the per-call limit costs the
    same bounded time, and is told the same sentence, in both.

    Each call may take the sooner of the per-call limit and what is left of the budget; once it is spent, every
    later call fails at once with :class:`CallsBudgetSpent`. What a call's failure costs after it is drawn from
    the same budget (:meth:`restarted`): starting a worker again and running the notebook's cells again, so a
    notebook whose every call kills its worker pays for each restart, instead of one notebook's timeout per
    hidden test for free."""

    def __init__(self, budget: TimeBudget) -> None:
        self._call, self._calls = budget.call, budget.calls
        self._left = budget.calls
        self._slowest = ("", 0.0)
        """The slowest call so far (the function's name, seconds), to name when the budget is spent."""
        self._restarts, self._restarting = 0, 0.0
        """How many times, and for how many seconds, the notebook was started again after a call stopped it."""

    def allowed(self, limit: float | None = None) -> tuple[float, bool]:
        """Seconds the next call (or restart) may take, at most ``limit`` (None: the per-call limit), and whether
        that is the budget's end rather than ``limit`` (a timeout then means the budget is spent); raises
        :class:`CallsBudgetSpent` if nothing is left."""
        limit = self._call if limit is None else limit
        if self._left <= 0:
            raise self.spent()
        return min(limit, self._left), self._left < limit

    def took(self, name: str, seconds: float) -> None:
        """Count one call of ``name`` that took ``seconds`` against the budget."""
        self._left -= seconds
        if seconds > self._slowest[1]:
            self._slowest = (name, seconds)

    def restarted(self, seconds: float) -> None:
        """Count ``seconds`` spent starting the notebook again after a call stopped it against the budget."""
        self._left -= seconds
        self._restarts += 1
        self._restarting += seconds

    def spent(self) -> CallsBudgetSpent:
        """The error for a call not made (or stopped) because the budget is spent; it names the slowest call, and
        the restarts when they took part of it."""
        name, took = self._slowest
        again = ""
        if self._restarts:
            times = "once" if self._restarts == 1 else f"{self._restarts} times"
            again = f", and starting your code again {times} after a call stopped it ({self._restarting:.1f} s),"
        slowest = f": a call of {name} took {took:.1f} s" if name else ""
        fix = "make your functions faster" + (" and keep them from ending the process they run in" if again else "")
        return CallsBudgetSpent(
            f"the hidden tests' calls to your functions{again} used up the notebook's {self._calls:g} s of "
            f"time, so the tests left were not run; {fix}{slowest}"
        )
