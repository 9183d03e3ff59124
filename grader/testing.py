"""The API hidden suites are written against: reach the learner's answers and say what went wrong.

A hidden test asks for the ``learner`` fixture (a :class:`Learner`) and, if it needs reference behaviour,
the ``reference`` fixture (the solution notebook's namespace). It marks which question it grades::

    @question("decode_step_seconds")
    def test_round_numbers(learner):
        got = learner.call("decode_step_seconds", 14e9, 1e12)
        expect_close(got, 0.014)

Every value that comes back is plain data with its Python type kept: a tuple is a tuple, an int an int; what
is not plain data (a numpy array, a set, a custom object) comes back as an :class:`Opaque` description that
equals nothing (see :mod:`grader.execute.protocol`). Failures are raised as
:class:`Mismatch` with a message written for the learner: what was called, what came back, what was
expected, and the likely misconception when one can be recognised.
"""

from __future__ import annotations

import math
import os
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

import pytest
from hypothesis import Phase

from grader.config import REL_TOL, STAND_IN_MAX_TOKENS
from grader.diagnose import kind
from grader.execute.protocol import ChannelError, RemoteError, Returned
from grader.execute.protocol import (
    Opaque as Opaque,  # re-exported: hidden tests check ``isinstance(got.value, Opaque)``
)
from grader.reveal import learner_view as learner_view  # re-exported
from grader.reveal import staff_view as staff_view
from grader.reveal import withheld as withheld

#: What a lesson's suites may import from the grader: this module's names below, :mod:`grader.checks`',
#: :mod:`grader.diagnose`'s and :mod:`grader.reveal`'s (each its ``__all__``), and nothing else
#: (tests/test_layers.py reads every suite). The rest of this module serves the grader (the targets a
#: :class:`Learner` calls, what a session catches).
__all__ = [
    "NO_SHRINK",
    "REL_TOL",
    "STAND_IN_MAX_TOKENS",
    "Call",
    "KnownSlip",
    "Learner",
    "LearnerHung",
    "LearnerRaised",
    "Mismatch",
    "MissingAnswer",
    "NotAttempted",
    "Opaque",
    "close",
    "diagnose_number",
    "expect",
    "expect_close",
    "expect_equal",
    "kind_of",
    "learner_view",
    "magnitudes",
    "number",
    "question",
    "show",
    "staff_view",
    "withheld",
]

#: Marks a hidden test as grading one question: ``@question("generate")`` or ``@question("generate", weight=2)``.
question = pytest.mark.question

#: The type name a worker reports when a name is not defined in the learner's notebook.
NOT_DEFINED = "NotDefined"


class Target(Protocol):
    """Where the learner's objects live: a worker process, or the live kernel for self-check."""

    def call(
        self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Callable[..., Any]]
    ) -> Returned:
        """The call's plain-data result, which arguments it modified in place ("0", "1", ... or names), and
        whether the result is one of the arguments or an earlier result (:class:`Returned`)."""
        ...

    def value(self, name: str) -> Any: ...

    def lent(self, name: str) -> Callable[..., Any] | None:
        """The lesson solution's function ``name`` as this target lends it: run where its cost is bounded (a
        grading worker's lender, :mod:`grader.execute.lender`), or None to lend the reference namespace's own."""
        ...

    def reached(self, name: str) -> frozenset[str] | None:
        """Every global name the learner's code of ``name`` can look up (:mod:`grader.execute.reach`), or None if that
        cannot be told: then every earlier question's stand-in is sent with a call, else only those it can reach."""
        ...


class Mismatch(AssertionError):
    """The learner's answer was checked and is wrong; ``str()`` is the feedback the learner reads."""


class KnownSlip(Mismatch):
    """The learner's answer is wrong, and one of the lesson's known slips on the learner's own numbers gives it.

    That is positive evidence of a slip, so the answer is never taken for another learner's numbers
    (:func:`grader.params.other_numbers_note`), even when it is also right on them (13e9 parameters at 2 bytes
    are 26e9 at 1 byte)."""


class LearnerRaised(Exception):
    """The learner's function raised an exception when called with a test's inputs."""


class NotAttempted(BaseException):
    """The stub is untouched (it raises NotImplementedError, or the variable is still None)."""


class MissingAnswer(BaseException):
    """The notebook defines no function or variable with the question's name."""


class LearnerHung(BaseException):
    """The call did not come back: it ran past its time limit, or the learner's process died."""


@dataclass(frozen=True)
class Call:
    """A call made to the learner's code and what came back, kept for feedback."""

    text: str
    value: Any
    """Plain data with its Python type kept, or an :class:`Opaque` for what is not plain data."""
    changed: tuple[str, ...] = ()
    """Arguments the call modified in place: positions ("0", "1", ...) and keyword names."""
    same_as: str | None = None
    """None normally; "argument 1" / "argument prompt" (position from 0, or keyword, as passed) when the learner's
    function returned that argument object itself; "an earlier result" when it returned an object that an
    earlier call in the same learner process returned (a buffer reused across calls). Never said of immutable
    values (None, numbers, strings, tuples), which may be shared harmlessly."""

    def modified(self, position: int, name: str) -> bool:
        """Whether the argument at ``position`` (or passed as keyword ``name``) was modified by the call."""
        return str(position) in self.changed or name in self.changed


_short = reprlib.Repr()
_short.maxlist = 8
_short.maxtuple = 8
_short.maxstring = 60
_short.maxother = 60


def number(value: float) -> str:
    """A number as people write it in feedback: 71.4, 2048, 2.039e12 (not 2039000000000), 1.5e-5."""
    if isinstance(value, int) and abs(value) < 10**6:
        return str(value)
    text = f"{value:.6g}"
    if isinstance(value, float) and text.lstrip("-").isdigit() and abs(value - round(value)) > 1e-9 * abs(value):
        # a float that is not whole never reads as a whole number: 560913.34 is not shown as the count 560913
        # (float noise, 2.0000000000000002e-5 or 1e8 + 1e-5, is not spelled out)
        figures = 6
        while "." not in text and figures < 17:
            figures += 1
            text = f"{value:.{figures}g}"
    mantissa, _, exponent = text.partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def show(value: Any) -> str:
    """A short, readable rendering of a value for feedback."""
    if isinstance(value, Opaque):
        return value.text
    if callable(value):
        return getattr(value, "__name__", "a function")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"{_short.repr(value)} ({len(value)} items)"
    return _short.repr(value)


#: What kind of value it is, for feedback: "a tuple", "an int", "a numpy array of shape (3,) and dtype int64".
kind_of = kind


def describe_call(name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


class Learner:
    """What a hidden test sees of one learner's notebook."""

    def __init__(
        self,
        target: Target,
        stand_ins: Mapping[str, Iterable[str]],
        reference: SimpleNamespace,
        notes: dict[str, Any] | None = None,
    ) -> None:
        """``notes``: what :meth:`once` keeps, shared by every test of one run of the suites on one notebook."""
        self._target = target
        self._lent = {name: tuple(lent) for name, lent in stand_ins.items()}
        self._reference = reference
        self._notes = {} if notes is None else notes
        self.stood_in: set[str] = set()
        """The names whose stand-in the learner's code actually called, over every call of this test."""
        self.carried: set[str] = set()
        """Earlier by-hand answers, wrong, that this test credited a later answer for following from (error
        carried forward, :class:`grader.checks.Carried`): kept, like :attr:`stood_in`, so the report can say why
        the check passed."""

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, run once per notebook graded and kept for every later test that asks for ``key``.

        For work that depends only on the learner's code, not on a test's inputs, and costs many calls: a
        diagnosis that calls the learner's function on a fixed panel of cases to name the misconception (the
        Decode suites' ``wrong_check``) runs once, not once per failing test. An exception is not kept.
        Never use it for what decides a test's pass or fail: each test must make its own calls.
        """
        if key not in self._notes:
            self._notes[key] = compute()
        return self._notes[key]

    def call(
        self,
        name: str,
        *args: Any,
        stand_ins: Mapping[str, Callable[..., Any]] | None = None,
        own: Iterable[str] = (),
        **kwargs: Any,
    ) -> Call:
        """Call the learner's ``name``; the earlier questions' functions are answered by the reference meanwhile.

        So a bug in one function costs points once: ``decode_time`` is graded with the reference
        ``decode_step_seconds`` and ``tokens_per_second`` behind it (every function question that comes
        before it in the lesson; see :attr:`grader.model.Lesson.stand_ins`). A later question's reference is
        never lent, so no answer can be borrowed. ``stand_ins`` adds or overrides replacements for this call.
        Which stand-ins the learner's code called is kept in :attr:`stood_in`, for feedback.

        ``own`` names earlier functions left as the learner wrote them for this call: their behaviour runs in
        the worker, which a trusted stand-in cannot imitate (one list passed to a callback again and again, as
        it grows). Use it only after checking that the learner's function is right on the same inputs, so the
        call still costs one bug once.
        """
        text = describe_call(name, args, kwargs)
        kept = set(own)
        reached = self._target.reached(name)  # a stand-in the function cannot reach changes nothing: not sent
        lent = {
            f: self._target.lent(f) or getattr(self._reference, f)
            for f in self._lent.get(name, ())
            if f not in kept and (reached is None or f in reached) and callable(getattr(self._reference, f, None))
        }
        lent.update(stand_ins or {})
        swaps = {f: self._watched(f, fn) for f, fn in lent.items()}
        try:
            returned = self._target.call(name, list(args), dict(kwargs), swaps)
        except RemoteError as err:
            raise _learner_error(name, text, err) from None
        except ChannelError as err:
            raise LearnerHung(_hung_sentence(text, err)) from None
        return Call(text=text, value=returned.value, changed=returned.changed, same_as=returned.same_as)

    def _watched(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, noting in :attr:`stood_in` that the learner's code called it (it runs on the trusted side)."""

        def stand_in(*args: Any, **kwargs: Any) -> Any:
            self.stood_in.add(name)
            return fn(*args, **kwargs)

        stand_in.__name__ = stand_in.__qualname__ = name
        return stand_in

    def value(self, name: str) -> Any:
        """The value of the learner's variable ``name``; a stub left as ``None`` counts as not attempted."""
        try:
            value = self._target.value(name)
        except RemoteError as err:
            if err.type_name == NOT_DEFINED:
                raise MissingAnswer(
                    f"Your notebook does not define `{name}`: run its cell, and keep the name as given."
                ) from None
            raise LearnerRaised(f"Reading `{name}` failed: {err}") from None
        except ChannelError as err:
            raise LearnerHung(_hung_sentence(name, err)) from None
        if value is None:
            raise NotAttempted(f"`{name}` is still None: not attempted yet.")
        return value


def _learner_error(name: str, text: str, err: RemoteError) -> BaseException:
    if err.type_name == NOT_DEFINED:
        return MissingAnswer(
            f"Your notebook does not define a function `{name}`: did you rename it, or not run its cell?"
        )
    if err.type_name == "NotImplementedError":
        return NotAttempted(f"`{name}` still raises NotImplementedError: not attempted yet.")
    where = _last_learner_line(err.traceback)
    return LearnerRaised(staff_view(f"{text} raised {err.type_name}: {err.message}{where}"))


_GRADER_FILES = f'File "{Path(__file__).resolve().parent}{os.sep}'
"""How a traceback names a file of this package: the worker runs the same files at the same paths."""


def _last_learner_line(traceback: str) -> str:
    """The innermost line of the learner's own code in a worker traceback, e.g. ' (at: return a / b)', or ''.

    Frames of the grader's own files (the worker's call machinery, where a wrong keyword raises) are passed
    over: pointing a learner at them would send them to code they did not write.
    """
    lines = traceback.splitlines()
    frames = [
        i for i, ln in enumerate(lines) if ln.strip().startswith("File ") and not ln.strip().startswith(_GRADER_FILES)
    ]
    if not frames or frames[-1] + 1 >= len(lines):
        return ""
    code = lines[frames[-1] + 1].strip()
    return f" (at: {code[:80]})" if code and not code.startswith(("File ", "Traceback")) else ""


def _hung_sentence(text: str, err: ChannelError) -> str:
    from grader.execute.protocol import BadMessage, CallsBudgetSpent, ChannelTimeout, WorkerEnded

    if isinstance(err, CallsBudgetSpent):
        return f"{text} was not answered: {err}."
    if isinstance(err, WorkerEnded):
        return f"{text} stopped the process running your code: {err}"
    if isinstance(err, ChannelTimeout):
        return f"{text} did not return in time and was stopped: look for a loop that never ends."
    if isinstance(err, BadMessage):
        return (
            f"{text} sent the grader something that cannot be graded ({err}): what it returned, or what it passed to "
            "a function the grader gave it. Return and pass plain numbers, strings, lists or dicts, of a sensible size."
        )
    return f"{text} stopped the process running your code ({err}); look for exit(), os._exit() or a crash."


# -- generated inputs -----------------------------------------------------------------------------------------

#: Hypothesis phases for a graded ``@given`` test: report the first failing example without shrinking it,
#: since shrinking a wrong answer can take hundreds of calls into the learner's process.
NO_SHRINK = (Phase.explicit, Phase.generate)


def magnitudes(lo: int, hi: int) -> Any:
    """Physically meaningful sizes from 10**lo to 10**hi: floats with uneven digits, and plain ints."""
    from hypothesis import strategies as st

    return st.one_of(
        st.builds(lambda m, e: m * 10.0**e, st.floats(1.0, 9.99), st.integers(lo, hi - 1)),
        st.integers(10**lo, 10**hi),
    )


# -- checks that produce teaching feedback -----------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def close(a: float, b: float, rel: float = REL_TOL) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def expect_close(
    got: Call,
    expected: float,
    *,
    rel: float = REL_TOL,
    unit: str = "",
    wrong: Mapping[str, float] | None = None,
) -> None:
    """Pass if ``got.value`` is within ``rel`` of ``expected``; otherwise explain, naming a known mistake if one fits.

    ``wrong`` maps a description of a likely mistake ("the formula inverted: bandwidth / param_bytes") to
    the value that mistake produces; generic slips (a unit factor, a reciprocal, rounding) are recognised
    too (:mod:`grader.diagnose`). The expected value is withheld from learners unless the lesson reveals it.
    """
    value = got.value
    if _is_number(value) and close(float(value), expected, rel):
        return
    unit_text = f" {unit}" if unit else ""
    lines = [
        f"{got.text} returned {show(value)}, which is not right"
        + withheld(f" (expected {expected:.6g}{unit_text}, within {rel:g} relative)")
        + "."
    ]
    why = diagnose_number(value, expected, wrong or {}, rel, unit=unit)
    if why:
        lines.append(why)
    raise Mismatch(" ".join(lines))


def diagnose_number(
    value: Any, expected: float, wrong: Mapping[str, float], rel: float = REL_TOL, *, unit: str = ""
) -> str:
    """Name the likely misconception behind a wrong number, or return ''."""
    from grader.diagnose import explain

    known = [(f"That is what {description} gives.", v) for description, v in wrong.items()]
    return explain(value, expected, unit=unit, rel=rel, known=known)


def expect_equal(
    got: Call,
    expected: Any,
    *,
    diagnose: Callable[[Any], str] | None = None,
    wrong: Mapping[str, float] | None = None,
) -> None:
    """Pass if ``got.value == expected`` (both plain data, same type); otherwise explain, using ``diagnose`` if
    given, else (for a number) the known mistakes in ``wrong`` and the generic slips of :mod:`grader.diagnose`."""
    value = got.value
    if value == expected and type(value) is type(expected):
        return
    lines = [f"{got.text} returned {show(value)}, which is not right" + withheld(f" (expected {show(expected)})") + "."]
    if diagnose:
        why = diagnose(value)
    elif _is_number(expected):
        why = diagnose_number(value, float(expected), wrong or {})
    else:
        why = ""
    if why:
        lines.append(why)
    raise Mismatch(" ".join(lines))


def expect(condition: bool, message: str) -> None:
    """Fail with ``message`` (written for the learner) unless ``condition`` holds."""
    if not condition:
        raise Mismatch(message)
