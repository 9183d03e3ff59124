"""Ready-made checks for what every lesson's hidden suites do: a by-hand number, a letter, a numeric function.

Each lesson's suites used to carry their own copy of these (copied from one lesson to the next, drifting in
wording); here they are written once, so every lesson words a wrong letter, a wrong by-hand number and a
wrong function result the same way, and a fix reaches all of them. A lesson keeps what is its own: its spec
formulas, the slips its learners make (in their words), the probe inputs that tell those slips apart, and the
advice for a slip the grader cannot name.

How a wrong number is explained (issue 20: name a slip only where the evidence supports it). A function that
returns a wrong number is called again on its **probes**: fixed inputs on which every slip the lesson knows
gives a different value (each lesson's test checks that). A slip is named only when it is the one slip that
gives every result seen; a generic slip of :mod:`grader.diagnose` (a unit factor, a reciprocal, a rounding) only
when it is the same on the first probe; the same number on a probe is a hard-coded answer; anything else is said
plainly to be a slip the grader cannot tell. A by-hand number is only one piece of evidence, so its slip is
named only when it is the one known slip within 0.2% of the answer given.

One bug costs once for by-hand chains too (error carried forward). A function is graded with the reference's
helpers behind it; a by-hand answer cannot be, for the learner computed it from their own earlier answers. So
a by-hand answer worked right from the learner's own earlier answers, one of them wrong, earns its points
(:class:`Carried`, :class:`Use`): a slip in the GB read per step costs that question only, not also the
milliseconds and the tokens per second worked from it. Credit needs positive evidence: every earlier answer a
finite real number of the kind some set of the lesson's numbers gives it (its sign, a whole number where it is
one, a magnitude within a unit slip's reach: :attr:`Use.plausible`), the carried value finite, non-zero, of the
right answer's sign and not the right one, and the answer within its own tolerance of it; the report then says
why it passed (never a right value). An earlier answer that is right on another learner's numbers carries nothing
(a copy), unless one of its known slips on the learner's own numbers gives it (:attr:`Use.copied`): 13e9
parameters at 2 bytes per parameter are 26e9 at 1, and that learner slipped, as far as the evidence shows.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings

from grader.config import REL_TOL
from grader.diagnose import kind, near_miss, not_a_number, number, reciprocal, rounded, structural_slip, unit_slip
from grader.reveal import withheld
from grader.testing import (
    NO_SHRINK,
    Call,
    KnownSlip,
    Learner,
    LearnerRaised,
    Mismatch,
    MissingAnswer,
    NotAttempted,
    close,
    question,
    show,
)

__all__ = [
    "HARD_CODED",
    "NOT_SURE",
    "Carried",
    "Cases",
    "FunctionQuestion",
    "Known",
    "Numbers",
    "Slip",
    "Use",
    "WhyNot",
    "call_text",
    "call_with",
    "choice_tests",
    "either",
    "expect_choice",
    "expect_value",
    "explaining",
    "float_count",
    "function_tests",
    "generated",
    "hard_coded",
    "lesson_fixture",
    "not_right",
    "only_fit",
    "panel_answers",
    "panel_slip",
    "rounded_too_far",
    "three_figures",
    "within",
]

#: How every check starts saying it cannot name the slip (a lesson's corpus looks for it).
NOT_SURE = "I can't tell which slip"

#: A by-hand question's known slips: (what the learner did, in their words; the number it gives).
Known = Sequence[tuple[str, float]]

#: A function's slip: (what the learner did, in their words; the value it gives, called with the function's
#: arguments in the notebook's order).
Slip = tuple[str, Callable[..., Any]]

#: Why each wrong option of a choice is wrong: (the solution's letter these were written against, the sentence
#: for each other letter). Used only while the solution still gives that letter, so a reordered notebook falls
#: back to the general hint instead of explaining the wrong options of another order.
WhyNot = tuple[str, Mapping[str, str]]

#: How close a by-hand answer must be to a known slip to be named as it: learners round what they type.
_TYPED = 2e-3


def call_text(name: str, params: Sequence[str], args: Mapping[str, Any]) -> str:
    """``name(1, 2.5)``: a call as the learner would write it, in the notebook's parameter order."""
    return f"{name}({', '.join(show(args[p]) for p in params)})"


def call_with(
    learner: Learner, name: str, params: Sequence[str], args: Mapping[str, Any], keywords: bool = False
) -> Call:
    """Call the learner's ``name`` positionally (or by the notebook's parameter names, to check they were kept).

    A keyword call that fails because a parameter was renamed says so plainly: the learner's maths may be
    right, and the feedback should say what to change rather than show a bare ``TypeError``.
    """
    if not keywords:
        return learner.call(name, *(args[p] for p in params))
    try:
        return learner.call(name, **args)
    except LearnerRaised as err:
        text = str(err)
        if "TypeError" in text and ("keyword argument" in text or "missing" in text):
            raise LearnerRaised(
                f"{text}. Graders call `{name}` with the parameter names the notebook gives it "
                f"({', '.join(params)}); keep those names."
            ) from None
        raise


#: The sentence for an answer that does not move with its inputs (a constant, or the worked example's result).
HARD_CODED = (
    "it gives the same answer whatever the inputs. Is it hard-coded, or copied from the worked example? Compute it "
    "from the arguments."
)


def hard_coded(
    learner: Learner,
    name: str,
    params: Sequence[str],
    got: Call,
    others: Sequence[Mapping[str, Any]],
    differs: Callable[[Mapping[str, Any]], bool],
) -> str:
    """'' unless the learner's ``name``, right on ``got``'s inputs, returns the very same value (same type, equal)
    on the first of ``others`` whose right answer ``differs`` from this one: then the sentence that says so.

    A right answer on one example is evidence only if the function computes it: a constant that happens to be
    the docstring example's result (or 0 where no batch fits) would otherwise earn every check that uses those
    inputs. One more call per passing check; a right function can never be caught (its answers differ where the
    spec's do), and a call that raises tells nothing here (the other checks see it).
    """
    other = next((o for o in others if differs(o)), None)
    if other is None:
        return ""
    try:
        again = call_with(learner, name, params, other).value
    except LearnerRaised:
        return ""
    if number(again) is None or type(again) is not type(got.value) or again != got.value:
        return ""
    return (
        f"{got.text} returned {show(got.value)}, the right answer there, but {call_text(name, params, other)} "
        f"returned {show(again)} too: {HARD_CODED}"
    )


def float_count(got: Call, how: str = "int(), math.floor and math.ceil return one; so does // on two ints") -> str:
    """The sentence for a count that has the right value but is a float (``8.0``, numpy's ``float64``).

    One rule for every lesson: a count is asked for "as an int", so a float is not full marks however whole it
    is (a float count breaks ``range(n)`` and list sizes downstream). Types are judged on what arrives: a numpy
    scalar arrives as the Python value it holds, so ``numpy.float64(8.0)`` is a float and ``numpy.bool_`` a
    bool, while ``1`` is an int, not a bool. The float is shown as Python writes it,
    ``8.0``, so the learner sees what the sentence is about; ``how`` says how to get an int.
    """
    return f"{got.text} returned {got.value!r}: the right count, but a float. Return an int ({how})."


def not_right(got: Call, expected: Any, unit: str = "") -> str:
    """The first sentence of a wrong result's feedback: the call, what came back, and (staff only) what was
    expected; a bool or a whole number shown as itself, any other number to six significant digits."""
    unit_text = f" {unit}" if unit else ""
    if isinstance(expected, bool):
        shown = show(expected)
    elif isinstance(expected, int):
        shown = f"{show(expected)}{unit_text}"
    else:
        shown = f"{expected:.6g}{unit_text}"
    return f"{got.text} returned {show(got.value)}, which is not right" + withheld(f" (expected {shown})") + "."


#: How far (a factor either way) an earlier answer's magnitude may lie from its right values' and still carry.
_SPAN = 1e12


def _same_sign(a: float, b: float) -> bool:
    return (a > 0 and b > 0) or (a < 0 and b < 0) or (a == 0 and b == 0)


def within(got: float, right: float, rel: float, abs_tol: float = 0.0) -> bool:
    """Whether a by-hand number is right: within ``abs_tol`` of ``right`` when one is set (an answer asked to a
    number of decimal places), else within ``rel`` relative."""
    return abs(got - right) <= abs_tol if abs_tol else close(got, right, rel)


#: The most decimals, and significant figures, a by-hand answer is tried rounded or cut to: past them, it is the
#: full value typed out.
_MOST_FIGURES = 7


def _figures(n: int) -> str:
    return f"{n} significant figure{'s' if n > 1 else ''}"


def _places(n: int) -> str:
    return "a whole number (its decimals dropped)" if n == 0 else f"{n} decimal place{'s' if n > 1 else ''}"


def _cuts(expected: float, decimals_first: bool) -> list[tuple[str, float]]:
    """``expected`` rounded and cut (truncated, as ``int()`` and ``//`` do) to each number of decimals and of
    significant figures, each with what was done in words. The kind the question's allowance is stated in comes
    first (a whole number always does, and for figures a rounding before a cut: 120.6 given as 120 is read as 2
    figures, not int()), so a cut that is both (0.0123 is 4 decimals and 3 figures) is said in the question's own
    terms. A cut is not said to how many figures: "cut to 3 figures
    where 3 are allowed" would hand over the answer (one more in the last figure). A product like 0.29 x 100 is
    28.999999999999996 in floating point: it is rounded to 6 decimals before it is cut."""
    decimals: list[tuple[str, float]] = []
    for digits in range(_MOST_FIGURES):
        scale = 10.0**digits
        cut = "cut to a whole number (its decimals dropped, as int() does)" if digits == 0 else "cut short (truncated)"
        decimals += [
            (f"rounded to {_places(digits)}", round(expected, digits)),
            (f"{cut}, not rounded", math.trunc(round(expected * scale, 6)) / scale),
            (f"rounded down to {_places(digits)}", math.floor(round(expected * scale, 6)) / scale),
        ]
    figures: list[tuple[str, float]] = []
    lead = math.floor(math.log10(abs(expected)))
    # A count's "rounding" to a figure or two is likelier a slip landing there: only long ones are tried.
    if not float(expected).is_integer() or abs(expected) >= 1000:
        for n in range(1, _MOST_FIGURES + 1):
            scale = 10.0 ** (lead - n + 1)
            figures += [
                (f"rounded to {_figures(n)}", float(f"{expected:.{n - 1}e}")),
                ("cut short (truncated), not rounded", math.trunc(round(expected / scale, 6)) * scale),
            ]
    if decimals_first:
        return decimals + figures
    return decimals[:1] + figures[::2] + decimals[1:3] + figures[1::2] + decimals[3:]


def _allowed(expected: float, rel: float, abs_tol: float, cut: bool) -> str:
    """How far the question lets its answer be rounded, as advice: decimals for an answer judged to ``abs_tol``,
    significant figures for one judged to a relative tolerance wide enough for a few, else (and for a cut, whose
    count would give the answer away) the full value."""
    full = "keep the full value (no int(), round(), // or formatting); the grader allows for floating-point error"
    if cut:
        return full
    if abs_tol:
        places = max(0, round(-math.log10(2 * abs_tol)))
        return (
            f"it must be within {abs_tol:g} of the exact value, so keep at least {_places(places)}" if places else full
        )
    lead = math.floor(math.log10(abs(expected)))
    allowed = next((n for n in range(1, 5) if 0.5 * 10.0 ** (lead - n + 1) <= rel * abs(expected) * (1 + 1e-9)), None)
    if allowed is None:
        return full
    return (
        f"this answer may be rounded to {_figures(allowed)} but no further, so keep at least that many (or the full "
        "value)"
    )


def either(
    slip: str, got: float, expected: float, rel: float, abs_tol: float = 0.0, slip_value: float | None = None
) -> str:
    """``slip`` (a known slip's sentence, named because it is within 0.2% of ``got``), or, when ``got`` is also
    exactly the right value rounded too far (2.3 for 2.332, where a slip gives 2.304), both readings: the one
    number cannot tell a slip's value typed rounded from the right value rounded, so neither is said alone. A
    slip that gives ``got`` exactly (``slip_value``: 240, the 5th sorted value for a rank counted from 1) is the
    reading, said alone: a rounding to fewer figures landing on it too is the likelier coincidence."""
    if slip_value is not None and close(got, slip_value, 1e-9):
        return slip
    rounding = rounded_too_far(got, expected, rel, abs_tol) if math.isfinite(got) else ""
    if not rounding:
        return slip
    return f"{slip} Or else {rounding[0].lower()}{rounding[1:]}"  # a rounding sentence begins "It is"


def rounded_too_far(got: float, expected: float, rel: float, abs_tol: float = 0.0) -> str:
    """The sentence for a wrong by-hand answer that is the right value rounded or cut further than its question
    allows (two significant figures where three are allowed, decimals dropped, a value truncated rather than
    rounded), else ''. One rule for every lesson's by-hand checks: what was done, in words, and how far this
    question's tolerance (``rel``, or ``abs_tol`` for an answer asked to a number of decimal places) lets it be
    rounded. Only an exact rounding is named (a slip rarely lands on one): never 0, never the right value itself,
    and the answer's own figures are never stated."""
    if not expected or not math.isfinite(expected) or not math.isfinite(got) or within(got, expected, rel, abs_tol):
        return ""
    for what, cut in _cuts(expected, decimals_first=bool(abs_tol)):
        if cut and cut != expected and close(got, cut, 1e-12):  # a 0 is what many slips return: no rounding
            return f"It is the right value {what}: {_allowed(expected, rel, abs_tol, what.startswith('cut'))}."
    return ""


@dataclass(frozen=True)
class Use:
    """One earlier by-hand answer a later one is worked from, for :class:`Carried`.

    ``rel`` and ``abs_tol`` must be the ones the earlier answer's own check uses: "wrong" here has to mean what
    it means there, or a later answer could be credited on an earlier one that passed.

    ``others``: the earlier answer's right value on every other set of the lesson's learner numbers (the
    ``other_params`` fixture), for a lesson with some. An earlier answer that is right on another set is a copied
    (or swapped) Part 1, not a slip, and earns a later answer nothing: a classmate's Part 1 handed in whole would
    otherwise be credited wherever the two learners share a number.

    ``known``: the earlier answer's own known slips on the learner's own numbers (what its own check names it
    from). An answer one of them gives is evidence of that slip, even when it is also right on another set (13e9
    parameters at 2 bytes are 26e9 at 1 byte): it carries, as any slip does. Only a match with another set that
    no slip on the learner's own numbers explains is a copy (:attr:`copied`).
    """

    name: str
    value: Any
    """What the learner gave; :meth:`of` reads it, an answer missing, not attempted or unreadable as None."""
    right: float
    rel: float = REL_TOL
    abs_tol: float = 0.0
    others: Sequence[float] = ()
    known: Known = ()

    @classmethod
    def of(
        cls,
        learner: Learner,
        name: str,
        right: float,
        *,
        rel: float = REL_TOL,
        abs_tol: float = 0.0,
        others: Sequence[float] = (),
        known: Known = (),
    ) -> Use:
        """The learner's ``name``, read without failing the later answer's check when it is not there (its own
        question reports that)."""
        try:
            value = learner.value(name)
        except (MissingAnswer, NotAttempted, LearnerRaised):
            value = None
        return cls(name, value, right, rel, abs_tol, tuple(others), tuple(known))

    @property
    def given(self) -> float | None:
        """The learner's answer as a finite real number, or None (missing, a bool, a string, inf, NaN)."""
        got = number(self.value)
        return got if got is not None and math.isfinite(got) else None

    @property
    def wrong(self) -> bool:
        """Whether the learner gave a number that its own question marks wrong."""
        got = self.given
        return got is not None and not within(got, self.right, self.rel, self.abs_tol)

    @property
    def plausible(self) -> bool:
        """Whether the learner's answer is a number of the kind the lesson's numbers give this answer (its right
        value on every set, ``right`` and ``others``): of their sign (never 0 when none is 0), a whole number when
        they are all whole (``int``), and within :data:`_SPAN` of their magnitudes (a unit slip, bytes for GB or
        bits for bytes, is far inside). Only such an answer can carry credit: a negative count, or
        ``-1e-300`` GB, is an answer no set of numbers could give, whatever the later formula makes of it
        (floor of a tiny negative is -1 on every learner's numbers)."""
        got = self.given
        rights = [float(self.right), *map(float, self.others)]
        if got is None or not all(math.isfinite(r) for r in rights):
            return False
        if not any(_same_sign(got, r) for r in rights):
            return False
        if all(type(r) is int for r in (self.right, *self.others)) and not got.is_integer():
            return False
        sizes = [abs(r) for r in rights if r != 0]
        return not sizes or min(sizes) / _SPAN <= abs(got) <= max(sizes) * _SPAN

    @property
    def slipped(self) -> bool:
        """Whether the learner's wrong answer is what one of its known slips gives on the learner's own numbers:
        within its own tolerance of one, or named as one by the rule its own check names slips by
        (:func:`explaining`, a count only exactly)."""
        got = self.given
        if not self.wrong or got is None:
            return False
        if any(within(got, float(v), self.rel, self.abs_tol) for _, v in self.known):
            return True
        return bool(explaining(self.known, got, count=type(self.right) is int))

    @property
    def copied(self) -> bool:
        """Whether the learner's wrong answer is the right one on another set of the lesson's numbers and no known
        slip on their own numbers gives it (then it is that slip: positive evidence, where the match with another
        set may be chance)."""
        got = self.given
        matches = self.wrong and got is not None and any(within(got, o, self.rel, self.abs_tol) for o in self.others)
        return matches and not self.slipped


@dataclass(frozen=True)
class Carried:
    """How a by-hand answer follows from earlier ones, so a slip in those costs their points only (error carried
    forward: one bug costs once, as a function graded on the reference's helpers does).

    ``formula`` is the lesson's own formula for the answer, called with the learner's values of ``uses`` in
    order (the learner's other numbers, from ``params``, go in the closure). ``learner`` is where a credit is
    noted, so the report can say the answer passed for following from a wrong earlier one; None credits silently.
    """

    uses: Sequence[Use]
    formula: Callable[..., float]
    learner: Learner | None = None

    def value(self) -> float | None:
        """The answer as worked right from the learner's own earlier answers, when that may earn credit: every
        one of them a finite real number of the kind the lesson's numbers give (:attr:`Use.plausible`) and at
        least one wrong; None otherwise, when one of them is right on another set of the lesson's numbers and no
        known slip on the learner's own explains it (a copy earns nothing: :attr:`Use.copied`), or when the
        formula fails or gives 0, inf or NaN (a carried 0 would credit any answer that is 0 for a reason of its
        own)."""
        given = [use.given for use in self.uses]
        if not self.uses or None in given or not any(use.wrong for use in self.uses):
            return None
        if any(use.copied or not use.plausible for use in self.uses):
            return None
        try:
            carried = float(self.formula(*given))
        except (ArithmeticError, ValueError):
            return None
        return carried if math.isfinite(carried) and carried != 0 else None

    @property
    def wrong(self) -> tuple[str, ...]:
        """The names of the earlier answers the learner got wrong."""
        return tuple(use.name for use in self.uses if use.wrong)


def expect_value(
    name: str,
    value: Any,
    expected: float,
    *,
    meaning: str,
    known: Known,
    rel: float,
    advice: str = "",
    abs_tol: float = 0.0,
    unit: str = "",
    carried: Carried | None = None,
) -> None:
    """Check a by-hand number (``meaning`` says in words what it is, never its value); the feedback never states
    the number. Only one number is evidence here, so a slip is named only when it is the one known slip within
    0.2% of the answer given (a lesson keeps its slips further apart), else the right value rounded or cut
    further than the question allows (:func:`rounded_too_far`, in every lesson), else a generic slip (``unit``
    words a unit factor), else "not sure". ``abs_tol``, when set, judges the answer to that many decimals instead
    of ``rel``.

    With ``carried``, an answer worked right from the learner's own earlier answers, one of them wrong, earns
    its points too (see :class:`Carried`); a wrong one keeps the feedback above, its slip named from the right
    inputs, and is told when it does not follow from the learner's own earlier answers either.
    """
    got = number(value)
    follows = carried.value() if carried is not None else None
    if follows is not None and within(follows, expected, rel, abs_tol):
        follows = None  # the earlier slip does not change this answer: only the right value is right
    if follows is not None and expected != 0 and not _same_sign(follows, expected):
        follows = None  # a negative count from a positive one's slip: no learner's numbers give that kind
    if got is not None and math.isfinite(got):
        if within(got, expected, rel, abs_tol):
            return
        if carried is not None and follows is not None and within(got, follows, rel, abs_tol):
            if carried.learner is not None:
                carried.learner.carried.update(carried.wrong)
            return
    text = (
        f"`{name}` is {show(value)}, which is not right for {meaning}" + withheld(f" (expected {expected:.6g})") + "."
    )
    why = not_a_number(value)
    fits: list[str] = []
    if not why and got is not None:
        # A slip that gives the right value on these numbers cannot have given a wrong one (issue 33: a hint only
        # where it can apply): a near miss is not named as it.
        fitting = [
            (sentence, wrong)
            for sentence, wrong in known
            if close(got, wrong, _TYPED) and not within(float(wrong), expected, rel, abs_tol)
        ]
        fits = [sentence for sentence, _ in fitting]
        if len(fits) == 1:
            why = either(f"That is {fits[0]}.", got, expected, rel, abs_tol, fitting[0][1])
        else:
            slip = unit_slip(got, expected, unit, rel=_TYPED, by_hand=True)
            why = (
                (rounded_too_far(got, expected, rel, abs_tol) if math.isfinite(got) else "")
                or (slip.sentence if slip else "")
                or reciprocal(got, expected, _TYPED, by_hand=True)
                or near_miss(got, expected, rel, by_hand=True)
            )
    why = why or f"{NOT_SURE} gives this number."
    if carried is not None and follows is not None and got is not None and math.isfinite(got):
        names = " and ".join(f"`{n}`" for n in carried.wrong)
        why += f" It does not follow from your own {names} either, so look for a slip in this step too."
    wrong = KnownSlip if fits else Mismatch  # a known slip on the learner's own numbers: never called a copy
    raise wrong(" ".join(part for part in (text, why, advice) if part))


def explaining(known: Known, value: Any, *, count: bool = False) -> Known:
    """The known slips that explain ``value``, as one entry naming them all in one sentence, or none; all of
    ``known`` when ``value`` is no finite real number. On some learner's numbers two slips give about the same
    number: passed on as two, neither would be named. A count is a whole number: a whole answer is explained only by
    a slip giving exactly it (at hundreds, 0.2% spans more than one), one not whole only by a slip not whole either
    (the count left unrounded), so a lesson with learner parameters passes :func:`expect_value` this, not ``known``."""
    got = number(value)
    if got is None or not math.isfinite(got):
        return known
    if count and got.is_integer():
        fits = [(s, v) for s, v in known if v == got]
    else:
        fits = [(s, v) for s, v in known if close(got, v, _TYPED) and not (count and float(v).is_integer())]
    sentences = list(dict.fromkeys(s for s, _ in fits))
    if not sentences:
        return ()
    if len(sentences) == 1:
        return ((sentences[0], got),)
    return ((f"one of {len(sentences)} slips, which give about the same number here: " + "; or ".join(sentences), got),)


def three_figures(right: float, rel: float) -> float:
    """The relative tolerance that accepts ``right`` rounded to 3 significant figures (half a unit of its third
    figure, up to 0.5% of it by its leading digits), never less than ``rel``: for a question that allows that."""
    if right == 0 or not math.isfinite(right):
        return rel
    return max(rel, 0.5 * 10.0 ** (math.floor(math.log10(abs(right))) - 2) / abs(right) * (1 + 1e-9))


def panel_answers(learner: Learner, name: str, calls: Sequence[Sequence[Any]]) -> tuple[Any, ...] | None:
    """The learner's ``name`` called on each of a fixed panel of argument lists, once per notebook (the answers
    depend only on the code: see :meth:`Learner.once`); None when a call raised, for then the panel tells
    nothing. For a result one probe cannot explain (a verdict, a whole number whose slips agree on most
    inputs), the whole row of answers tells the slips apart."""

    def compute() -> tuple[Any, ...] | None:
        try:
            return tuple(learner.call(name, *args).value for args in calls)
        except LearnerRaised:
            return None

    answers = learner.once(f"{name}: panel", compute)
    return None if answers is None else tuple(answers)


def panel_slip(
    learner: Learner,
    name: str,
    spec: Callable[..., Any],
    params: Sequence[str],
    calls: Sequence[Sequence[Any]],
    first: Sequence[tuple[Mapping[str, Any], Any]],
    page: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The one structural slip (:func:`grader.diagnose.structural`) that gives the learner's results ``first``
    (the check's own first: each its inputs by parameter name and the value) and every answer on the panel
    ``calls`` (:func:`panel_answers`, once per notebook), as a sentence, or ''. For a count or a verdict whose panel
    tells the lesson's slips apart, when none of those fits: an argument swapped or fixed to the page's value
    shows on a panel as any slip does."""
    answers = panel_answers(learner, name, calls)
    if answers is None:
        return ""
    seen = [*first, *((dict(zip(params, c, strict=True)), a) for c, a in zip(calls, answers, strict=True))]
    return structural_slip(spec, params, seen, page)


def only_fit(
    answers: Sequence[Any], rules: Sequence[tuple[str, Sequence[Any]]], agree: Callable[[Any, Any], bool]
) -> str:
    """The sentence of the one rule whose row of answers agrees with the learner's everywhere, or '' when none
    or several do (then the evidence does not say which slip it is)."""
    fits = [
        sentence
        for sentence, row in rules
        if len(row) == len(answers) and all(agree(a, r) for a, r in zip(answers, row, strict=True))
    ]
    return fits[0] if len(fits) == 1 else ""


def _options(letters: str) -> str:
    return ", ".join(letters[:-1]) + f" or {letters[-1]}"


def expect_choice(
    name: str, value: Any, correct: Any, hint: str, why_not: WhyNot | None = None, letters: str = "ABCD"
) -> None:
    """Check a multiple-choice answer: one of ``letters``, case and spaces ignored; the learner is never told
    the right letter. A wrong letter gets its own explanation from ``why_not`` (while the solution still gives
    the letter it was written against), else ``hint``."""
    if not isinstance(correct, str) or not correct.strip():
        raise RuntimeError(f"the solution notebook gives no letter for {name!r} (got {correct!r})")
    solution = correct.strip().upper()
    right = withheld(f" (The right letter is {solution}.)")
    options = _options(letters)
    if not isinstance(value, str):
        raise Mismatch(
            f"`{name}` is {show(value)} ({kind(value)}); expected the letter of one option as a string: {options}, "
            f'in quotes, e.g. `{name} = "X"` with X your letter.' + right
        )
    answer = value.strip().upper()
    if answer == solution:
        return
    if len(answer) != 1 or answer not in letters:
        raise Mismatch(
            f"`{name}` is {show(value)}, which is not one of {options}: give just the letter of one option, as a "
            "string, without its text or punctuation." + right
        )
    if why_not is not None and why_not[0] == solution:
        hint = why_not[1].get(answer, hint)
    raise Mismatch(f"`{name}` is {show(value)}: {answer!r} is not the right option.{right} {hint}")


@dataclass(frozen=True)
class Numbers:
    """A lesson's numeric functions, with what it takes to check one and explain a wrong result from its probes.

    Every table is keyed by function name. ``probes`` are the fixed inputs a wrong function is called on again
    (one is enough when every slip differs there; a count may need more, since rounding slips agree on some
    inputs); ``counts`` are the functions whose result is a whole number, compared exactly and told
    ``not_whole`` when it has a fraction, and refused as a float even when whole (:func:`float_count`); a right
    result is checked once more on the first probe whose answer differs, so a hard-coded answer earns nothing
    (:meth:`_unconfirmed`); ``rounding`` lets a rounded result be named as such (a lesson whose
    slips include rounding of their own leaves it off, so the two cannot both claim one answer).

    When none of the lesson's slips fits, a structural slip is tried (:func:`grader.diagnose.structural`: two
    arguments swapped, one ignored for a constant, a fraction read as a percentage, brackets left out, a guard
    returning 0), named only when it is the one that gives every result seen; ``page`` holds, per function, the
    arguments of the notebook's worked examples, whose values are the constants a learner may have written in,
    and ``unrounded``, per count, its quotient before rounding (for the off-by-ones at an exact fit).
    """

    spec: Mapping[str, Callable[..., Any]]
    params: Mapping[str, tuple[str, ...]]
    units: Mapping[str, str]
    slips: Mapping[str, Sequence[Slip]]
    probes: Mapping[str, Sequence[Mapping[str, Any]]]
    advice: Mapping[str, str]
    counts: Collection[str] = ()
    not_whole: str = "It is not a whole number: a count, rounded down (`//`), is asked for."
    rounding: bool = False
    page: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    unrounded: Mapping[str, Callable[..., float]] = field(default_factory=dict)

    def call(self, learner: Learner, name: str, args: Mapping[str, Any], keywords: bool = False) -> Call:
        """:func:`call_with` with ``name``'s parameters."""
        return call_with(learner, name, self.params[name], args, keywords)

    def call_text(self, name: str, args: Mapping[str, Any]) -> str:
        """:func:`call_text` with ``name``'s parameters."""
        return call_text(name, self.params[name], args)

    def same(self, name: str, a: float, b: float) -> bool:
        """Whether two results of ``name`` are the same: exactly for a count, to 1e-6 otherwise."""
        if not (math.isfinite(a) and math.isfinite(b)):
            return False
        if name in self.counts:
            return abs(a - b) <= 1e-9 * max(1.0, abs(b))
        return close(a, b, REL_TOL)

    def right(self, name: str, value: Any, args: Mapping[str, Any]) -> bool:
        """Whether ``value`` is ``name``'s right result on ``args``."""
        got = number(value)
        return got is not None and self.same(name, got, self.spec[name](**args))

    def slip_value(self, name: str, rule: Callable[..., Any], args: Mapping[str, Any]) -> float:
        """What a slip of ``name`` gives on ``args``; NaN where the slip itself divides by zero (it then
        explains nothing)."""
        try:
            return float(rule(*(args[p] for p in self.params[name])))
        except ZeroDivisionError:
            return math.nan

    def consistent_slips(self, name: str, seen: Sequence[tuple[float, Mapping[str, Any]]]) -> list[str]:
        """The lesson's slips of ``name`` that give every result seen (result, inputs); a slip that would have
        been right on the first inputs is none of them (the first result is wrong)."""
        (_, args), *_ = seen
        expected = self.spec[name](**args)
        found = []
        for sentence, rule in self.slips.get(name, ()):
            if self.same(name, self.slip_value(name, rule, args), expected):
                continue
            if all(self.same(name, value, self.slip_value(name, rule, a)) for value, a in seen):
                found.append(sentence)
        return found

    def _generic(self, name: str, value: float, expected: float) -> str:
        """A unit factor, a reciprocal (or a rounding): sentences that depend only on the answer and the right
        one, so they are named only when a probe's answer gives the same one."""
        slip = unit_slip(value, expected, self.units.get(name, ""))
        if slip:
            return slip.sentence
        return reciprocal(value, expected) or (rounded(value, expected) if self.rounding else "")

    def why_wrong(
        self, name: str, first: tuple[Any, Mapping[str, Any]], probes: Sequence[tuple[Any, Mapping[str, Any]]] | None
    ) -> str:
        """Why a wrong result is wrong, from the learner's results on the first inputs and on the probes
        (``probes`` None if a probe call failed): a slip named only when it explains them all."""
        v1, a1 = first
        e1 = self.spec[name](**a1)
        why = not_a_number(v1)
        if why:
            return why
        value = float(v1)
        if not math.isfinite(value):
            return f"It is {value}: was there a division by zero or an overflow?"
        advice = self.advice[name]
        if not probes:
            return f"{NOT_SURE} this is (the check on other inputs failed). {advice}"
        v2, a2 = probes[0]
        e2 = self.spec[name](**a2)
        n2 = number(v2)
        if n2 is not None and type(v1) is type(v2) and v1 == v2 and not self.same(name, e1, e2):
            return f"{self.call_text(name, a2)} returned {show(v2)} too: {HARD_CODED}"
        numbers = [number(v) for v, _ in probes]
        if n2 is None or any(n is None for n in numbers):
            return f"{NOT_SURE} this is: {self.call_text(name, a2)} returned {show(v2)}. {advice}"
        seen = [(value, a1)] + [(float(n), a) for n, (_, a) in zip(numbers, probes, strict=True) if n is not None]
        fits = self.consistent_slips(name, seen)
        if len(fits) == 1:
            return f"That is {fits[0]}."
        calls: list[tuple[Mapping[str, Any], Any]] = [(a1, v1), *((a, v) for v, a in probes)]
        shape = structural_slip(
            self.spec[name], self.params[name], calls, self.page.get(name, ()), self.unrounded.get(name)
        )
        if shape:
            return shape
        if name in self.counts and value != math.floor(value):
            return self.not_whole
        g1, g2 = self._generic(name, value, e1), self._generic(name, n2, e2)
        if g1 and g1 == g2:
            return g1
        close_miss = near_miss(value, e1, REL_TOL)
        if close_miss and near_miss(n2, e2, REL_TOL):
            return close_miss
        if self.same(name, n2, e2):  # a right answer is no evidence of a slip: say it is right
            return (
                f"{NOT_SURE} this is: it matches none of the usual ones, and {self.call_text(name, a2)} returned "
                f"{show(v2)}, which is right, so the slip shows only on some inputs. {advice}"
            )
        return (
            f"{NOT_SURE} this is: it matches none of the usual ones, both here and for "
            f"{self.call_text(name, a2)} (which returned {show(v2)}). {advice}"
        )

    def _unconfirmed(self, learner: Learner, name: str, got: Call, args: Mapping[str, Any]) -> str:
        """'' when the learner's ``name``, right on ``args``, is right on its first probe whose answer differs
        too; else why its right answer here is no evidence: the same value there (hard-coded), or a wrong one
        (an argument written in, a slip that shows only on some inputs), explained as :meth:`why_wrong` does.

        A right answer on one example earns its check only if the function computes it: a constant that is the
        docstring example's result, or a parameter replaced by the example's value, would otherwise earn every
        check that uses those inputs. One more call per passing check; a right function is never caught (it is
        right on the probe), and a probe call that raises tells nothing here (the other checks see it).
        """
        expected = self.spec[name](**args)
        probe = next((p for p in self.probes[name] if not self.same(name, self.spec[name](**p), expected)), None)
        if probe is None:
            return ""
        try:
            again = self.call(learner, name, probe)
        except LearnerRaised:
            return ""
        if self.right(name, again.value, probe):
            return ""
        first = f"{got.text} returned {show(got.value)}, the right answer there, but"
        if number(again.value) is not None and type(again.value) is type(got.value) and again.value == got.value:
            return f"{first} {again.text} returned {show(again.value)} too: {HARD_CODED}"
        head = not_right(again, self.spec[name](**probe), self.units.get(name, ""))
        # the other probes too, so slips that agree on these two (round and ceil at an exact fit) can be told apart
        others = []
        for other in self.probes[name]:
            if other is probe:
                continue
            try:
                value = self.call(learner, name, other).value
            except LearnerRaised:
                continue
            if number(value) is not None:
                others.append((value, other))
        return f"{first} {head} {self.why_wrong(name, (again.value, probe), [(got.value, args), *others])}"

    def check(self, learner: Learner, name: str, keywords: bool = False, **args: Any) -> None:
        """Call the learner's ``name`` on ``args`` and compare with the spec; if it is wrong, call it on the
        function's probes and explain from every result."""
        got = self.call(learner, name, args, keywords)
        if self.right(name, got.value, args):
            if name in self.counts and isinstance(got.value, float):
                raise Mismatch(float_count(got))
            unconfirmed = self._unconfirmed(learner, name, got, args)
            if unconfirmed:
                raise Mismatch(unconfirmed)
            return
        head = not_right(got, self.spec[name](**args), self.units.get(name, ""))
        probes: list[tuple[Any, Mapping[str, Any]]] | None = None
        value = number(got.value)
        if value is not None and math.isfinite(value):
            try:
                probes = [(self.call(learner, name, probe).value, probe) for probe in self.probes[name]]
            except LearnerRaised:
                probes = None
        raise Mismatch(f"{head} {self.why_wrong(name, (got.value, args), probes)}")


# -- a lesson's tables of standard tests -------------------------------------------------------------------------
#
# Every lesson's suites test a function question the same way (the notebook's worked example, the spec's edges,
# generated inputs, the arguments passed by keyword in another order), a choice question by one call of
# expect_choice, and hand their checks to the tests through one session fixture. The tables below write each
# shape once: a suite says only what is its own (the inputs, the strategies, the fixture's members).


@dataclass(frozen=True)
class Cases:
    """One test of fixed calls: its name's end (``test_<prefix>_<name>``, or ``test_<name>`` with no prefix),
    each call's arguments in order, and its weight. ``calls`` may be a function of the lesson's fixture, for
    inputs the fixture computes."""

    name: str
    calls: Sequence[Mapping[str, Any]] | Callable[[Any], Sequence[Mapping[str, Any]]]
    weight: float = 1.0


@dataclass(frozen=True)
class FunctionQuestion:
    """A function question's standard tests, in the order their feedback is given: the worked example (weight
    1), each of ``edges``, the lesson's own ``generated`` test (see :func:`generated`), then the calls with
    every argument passed by keyword (weight 1). Each fixed call is ``fixture.<check>(learner, question,
    **args)`` (without ``question`` when ``named`` is false), ``keywords=True`` for the keyword calls."""

    question: str
    prefix: str
    worked: Sequence[Mapping[str, Any]]
    edges: Sequence[Cases] = ()
    generated: Callable[..., Any] | None = None
    keywords: Sequence[Mapping[str, Any]] = ()
    check: str = "check_number"
    named: bool = True

    def tests(self, fixture: str, module: str) -> list[tuple[str, Callable[..., Any]]]:
        """The question's tests as (name, test function) pairs, in order."""
        out = [self._fixed(Cases("worked_example", self.worked), fixture, module)]
        out += [self._fixed(cases, fixture, module) for cases in self.edges]
        if self.generated is not None:
            out.append((self.generated.__name__, self.generated))
        if self.keywords:
            out.append(self._fixed(Cases("keywords", self.keywords), fixture, module, keywords=True))
        return out

    def _fixed(self, cases: Cases, fixture: str, module: str, keywords: bool = False) -> tuple[str, Callable[..., Any]]:
        question_id, check, named, calls = self.question, self.check, self.named, cases.calls
        flag = {"keywords": True} if keywords else {}

        def test(learner: Learner, **fixtures: Any) -> None:
            lesson = fixtures[fixture]
            run = getattr(lesson, check)
            for args in calls(lesson) if callable(calls) else calls:
                if named:
                    run(learner, question_id, **flag, **args)
                else:
                    run(learner, **flag, **args)

        name = "_".join(part for part in ("test", self.prefix, cases.name) if part)
        return name, _as_test(test, name, module, ("learner", fixture), question_id, cases.weight)


def generated(question_id: str, *, examples: int, weight: float = 2.0, **strategies: Any) -> Callable[..., Any]:
    """A function question's generated-inputs test: ``@question(question_id, weight=2)``,
    ``@settings(max_examples=examples, phases=NO_SHRINK)`` and ``@given(**strategies)`` in one decorator.

    The test's own ``def`` and body stay in the suite: with ``derandomize`` hypothesis seeds a test from its
    source (its decorators left out), so the examples every learner is shown stay what they were."""

    def decorate(test: Callable[..., Any]) -> Callable[..., Any]:
        marked: Callable[..., Any] = question(question_id, weight=weight)(
            settings(max_examples=examples, phases=NO_SHRINK)(given(**strategies)(test))
        )
        return marked

    return decorate


def function_tests(namespace: dict[str, Any], fixture: str, questions: Sequence[FunctionQuestion]) -> None:
    """Put every question's standard tests into a suite module's ``namespace`` (its ``globals()``), in the
    table's order, which is the order pytest collects them in and so the order of each question's feedback: a
    ``generated`` test already defined in the module is moved to its place."""
    module = str(namespace["__name__"])
    for q in questions:
        for name, test in q.tests(fixture, module):
            namespace.pop(name, None)
            namespace[name] = test


def choice_tests(
    namespace: dict[str, Any],
    general: Mapping[str, str],
    why_not: Mapping[str, WhyNot],
    letters: Callable[[str], str] | str = "ABCD",
) -> None:
    """One test per choice question of ``general`` (its hint), ``test_<question>``, into a suite module's
    ``namespace``: :func:`expect_choice` on the learner's letter and the solution's, with ``why_not``'s
    sentences; ``letters`` the options (or a function of the question's id giving them)."""
    module = str(namespace["__name__"])
    for question_id, hint in general.items():

        def test(learner: Learner, reference: Any, question_id: str = question_id, hint: str = hint) -> None:
            options = letters(question_id) if callable(letters) else letters
            value = learner.value(question_id)
            expect_choice(question_id, value, getattr(reference, question_id), hint, why_not[question_id], options)

        name = f"test_{question_id}"
        namespace[name] = _as_test(test, name, module, ("learner", "reference"), question_id, 1.0)


def lesson_fixture(name: str, **members: Any) -> Any:
    """A lesson's one session fixture, ``name``: a namespace of what its conftest hands its tests, with the
    shared :func:`expect_value` and :func:`expect_choice` unless ``members`` gives its own. Assign it in the
    conftest under the same name (``kv = lesson_fixture("kv", spec=SPEC, check_number=check_number)``)."""

    def namespace() -> SimpleNamespace:
        return SimpleNamespace(**{"expect_value": expect_value, "expect_choice": expect_choice, **members})

    namespace.__doc__ = f"The {name} lesson's spec and checks, for the test modules."
    return pytest.fixture(scope="session", name=name)(namespace)


def _as_test(
    test: Callable[..., Any], name: str, module: str, arguments: Sequence[str], question_id: str, weight: float
) -> Callable[..., Any]:
    """``test`` as pytest collects a hand-written one: named ``name`` in ``module``, asking for the fixtures
    ``arguments`` (its signature says only these), marked as grading ``question_id`` with ``weight``."""
    test.__name__ = test.__qualname__ = name
    test.__module__ = module
    test.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in arguments]
    )
    marked: Callable[..., Any] = (
        question(question_id, weight=weight)(test) if weight != 1.0 else question(question_id)(test)
    )
    return marked
