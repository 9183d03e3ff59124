"""Name the slip behind a wrong answer: a unit factor, a reciprocal, a rounded or hard-coded value, a wrong type.

Learners' wrong numbers are rarely random: they are the right number seen through a known slip (milliseconds
for seconds, bits for bytes, 2 bytes per parameter counted twice, a formula upside down, a value rounded
before it was returned). Comparing a wrong value with the expected one under each slip names the
misconception in words a learner knows, without a lesson author listing every case. Lesson-specific slips
(an off-by-one in a count, a term left out of a sum) stay in the lesson's suites, which try them first
(``known``). Nothing here states the expected value itself: a learner may read every sentence.
"""

from __future__ import annotations

import ast
import inspect
import io
import itertools
import keyword
import math
import textwrap
import tokenize
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import combinations_with_replacement
from typing import Any

from grader.execute.protocol import Opaque

#: What hidden suites may use (with :mod:`grader.testing`, :mod:`grader.checks` and :mod:`grader.reveal`, the
#: authors' whole API).
__all__ = [
    "FACTORS",
    "UNSURE",
    "Candidate",
    "Seen",
    "Slip",
    "candidates",
    "close",
    "confirmed",
    "constant",
    "explain",
    "kind",
    "near_miss",
    "not_a_number",
    "number",
    "reciprocal",
    "rounded",
    "sign",
    "structural",
    "structural_slip",
    "unit_slip",
]

#: The unit factors of the course: (factor, the likely slip when an answer is too big by it, when too small).
FACTORS: tuple[tuple[float, str, str], ...] = (
    (
        2.0,
        # No cause of the learner's numbers is guessed here (2 bytes per parameter cannot apply to FP8 weights):
        # a lesson's own slips, computed from the learner's numbers, name those.
        "something counted twice (a factor or a term applied twice, or two steps where one is needed)?",
        "a factor of 2 left out, or something halved?",
    ),
    (8.0, "bits instead of bytes?", "bytes divided by 8, as if they were bits?"),
    (
        1e3,
        "a conversion by 1,000 the wrong way (milliseconds instead of seconds, MB instead of GB)?",
        "a conversion by 1,000 the wrong way (seconds instead of milliseconds, GB instead of MB)?",
    ),
    (
        1e6,
        "a conversion by a million (microseconds instead of seconds, KB instead of GB)?",
        "a division by a million where none belongs?",
    ),
    (
        1e9,
        "bytes instead of GB, or parameters counted one by one instead of in billions?",
        "GB where bytes were needed, or a division by 10^9 too many?",
    ),
    (1e12, "bytes instead of TB, or 1 TB/s written as 1 instead of 1e12?", "TB where bytes were needed?"),
)

#: Better words for a factor when the answer's unit is known: unit -> factor -> (too big, too small).
UNIT_WORDS: dict[str, dict[float, tuple[str, str]]] = {
    "s": {
        1e3: (
            "did you give milliseconds instead of seconds?",
            "did you divide by 1,000 where no conversion was needed?",
        ),
        1e6: (
            "did you give microseconds instead of seconds?",
            "did you divide by a million where no conversion was needed?",
        ),
    },
    "ms": {
        1e3: ("did you give microseconds instead of milliseconds?", "did you give seconds instead of milliseconds?"),
    },
    "tokens/s": {
        1e3: (
            "did you use milliseconds where seconds were needed (1000 / ms would be right, 1000 / s is not)?",
            "did you give tokens per millisecond instead of per second?",
        ),
    },
    "bytes": {
        1e3: ("did you multiply by 1,000 where no conversion was needed?", "did you give KB instead of bytes?"),
        1e6: ("did you multiply by a million where no conversion was needed?", "did you give MB instead of bytes?"),
        1e9: ("did you multiply by 10^9 where no conversion was needed?", "did you give GB instead of bytes?"),
    },
    "GB": {
        1e3: ("did you give MB instead of GB?", "did you give TB instead of GB?"),
        1e9: ("did you give bytes instead of GB?", "did you divide by 10^9 twice?"),
    },
}

#: A by-hand answer's words for a factor (unit -> factor -> (too big, too small); "" for any unit), where
#: :data:`UNIT_WORDS` and :data:`FACTORS` state the factor: the misconception without the factor or the
#: conversion that would turn the learner's number into the answer
#: (issue 33: naming the slip must not hand over the answer). A function's feedback keeps the factor: its
#: results are for the learner's own inputs, and they fix code, not a number.
BY_HAND_WORDS: dict[str, dict[float, tuple[str, str]]] = {
    "": {
        2.0: (
            "something counted twice (a factor or a term applied twice, or two steps where one is needed)?",
            "a factor or a term left out, or something halved where it is whole?",
        ),
        8.0: ("bits instead of bytes?", "bytes treated as if they were bits?"),
        1e3: (
            "a unit slip (milliseconds instead of seconds, MB instead of GB)?",
            "a unit slip (seconds instead of milliseconds, GB instead of MB)?",
        ),
        1e6: (
            "a unit slip (microseconds instead of seconds, KB instead of GB)?",
            "a conversion where none belongs?",
        ),
        1e9: (
            "bytes instead of GB, or parameters counted one by one instead of in billions?",
            "GB where bytes were needed, or a conversion to GB made twice?",
        ),
        1e12: ("bytes instead of TB, or a TB/s written as 1 where it is 10^12 bytes/s?", "TB where bytes were needed?"),
    },
    "s": {
        1e3: ("did you give milliseconds instead of seconds?", "did you convert a time that was already in seconds?"),
        1e6: ("did you give microseconds instead of seconds?", "did you convert a time that was already in seconds?"),
    },
    "tokens/s": {
        1e3: (
            "did you use milliseconds where seconds were needed?",
            "did you give tokens per millisecond instead of per second?",
        ),
    },
    "GB": {1e9: ("did you give bytes instead of GB?", "did you convert to GB twice?")},
    "bytes": {
        1e3: ("a unit conversion where none belongs?", "did you give KB instead of bytes?"),
        1e6: ("a unit conversion where none belongs?", "did you give MB instead of bytes?"),
        1e9: ("a unit conversion where none belongs?", "did you give GB instead of bytes?"),
    },
}

_BINARY = 2**30 / 1e9  # GiB against GB: 1.0737


@dataclass(frozen=True)
class Slip:
    """A named slip: the factor the answer is off by (``ratio`` = got / expected) and the sentence saying so."""

    ratio: float
    sentence: str


def close(a: float, b: float, rel: float) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def number(value: Any) -> float | None:
    """``value`` as a float if it is a real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def kind(value: Any) -> str:
    """What a value is, in a learner's words: 'None', 'a tuple', 'a numpy array of shape (3,) ...'."""
    if value is None:
        return "None"
    if isinstance(value, Opaque):  # described by the worker: "a numpy array of shape (3,) and dtype int64"
        return value.text
    name = type(value).__name__
    article = "an" if name[:1] in "aeiou" else "a"
    return f"{article} {name}"


def _factor_words(factor: float, unit: str, bigger: bool, by_hand: bool = False) -> str:
    """The words for a factor: the unit's own, else the course's; a by-hand number's where those state it."""
    tables = (
        [BY_HAND_WORDS.get(unit, {}), UNIT_WORDS.get(unit, {}), BY_HAND_WORDS[""]]
        if by_hand
        else [UNIT_WORDS.get(unit, {})]
    )
    words = next((table[factor] for table in tables if factor in table), None)
    if words:
        return words[0] if bigger else words[1]
    return next((big if bigger else small for f, big, small in FACTORS if f == factor), "")


def _amount(factor: float) -> str:
    return f"{factor:,.0f}" if factor >= 1 else f"{factor:g}"


def _scales() -> list[tuple[float, tuple[float, ...]]]:
    """Every single factor and every product of two, each with the factors it is made of."""
    singles: list[tuple[float, tuple[float, ...]]] = [(f, (f,)) for f, _, _ in FACTORS]
    pairs: list[tuple[float, tuple[float, ...]]] = [
        (a * b, (a, b)) for a, b in combinations_with_replacement([f for f, _, _ in FACTORS], 2)
    ]
    return singles + pairs


def unit_slip(got: float, expected: float, unit: str = "", rel: float = 1e-6, *, by_hand: bool = False) -> Slip | None:
    """A factor of 2, 8, 1000, 1e6, 1e9, 1e12, a product of two of these, or their inverse. ``by_hand``: for a
    number the learner typed, which the factor would turn into the answer in one step, so the sentence names
    the misconception and says which way the number is off, never by how much (:data:`BY_HAND_WORDS`)."""
    if not expected or not got or not math.isfinite(got) or got * expected < 0:
        return None
    ratio = got / expected
    for factor, parts in _scales():
        for bigger, target in ((True, factor), (False, 1 / factor)):
            if not close(ratio, target, rel):
                continue
            way = "too big" if bigger else "too small"
            words = _factor_words(factor, unit, bigger, by_hand)
            if by_hand:
                return Slip(ratio, _product_cause(way) if len(parts) > 1 else f"It is {way}: {words}")
            if len(parts) == 1:
                return Slip(ratio, f"It is {way} by a factor of {_amount(factor)}: {words}")
            return Slip(ratio, _product_sentence(way, factor, parts))
    for bigger, target in ((True, _BINARY), (False, 1 / _BINARY)):
        if close(ratio, target, 1e-4):
            if by_hand:
                which = "binary GiB used where decimal GB were meant" if bigger else "decimal GB counted as binary GiB"
                return Slip(ratio, f"Is it {which}? The course uses decimal units.")
            which = (
                "GiB (2^30 bytes) used where GB (10^9) were meant"
                if bigger
                else "GB (10^9 bytes) counted as GiB (2^30)"
            )
            return Slip(ratio, f"It is off by 2^30 / 10^9 = 1.074: {which}? The course uses decimal units.")
    return None


def _product_cause(way: str) -> str:
    """:func:`_product_sentence` for a by-hand number: the factor left out (it is the route to the answer)."""
    return (
        f"It is {way} by what two of the course's unit factors make together: one slip or two can give that (a "
        "factor applied the wrong way round, x for /, is one), so check each factor and unit in turn."
    )


def _product_sentence(way: str, factor: float, parts: tuple[float, ...]) -> str:
    """A factor that two of the course's factors multiply to. One number cannot say which slips made it: x 2
    written for / 2 is one slip and gives 4, as do two different slips of 2 each; so the factor is stated and
    the decomposition offered only as a place to look, never named as the cause."""
    a, b = parts
    return (
        f"It is {way} by a factor of {_amount(factor)} exactly ({_amount(a)} x {_amount(b)}): one slip or two can "
        "give that (a factor applied the wrong way round, x for /, is one), so check each factor and unit in "
        "turn."
    )


def _off_by(ratio: float) -> str:
    """'too big by a factor of 16': how far off a value is, without naming why."""
    return f"too big by a factor of {_amount(ratio)}" if ratio > 1 else f"too small by a factor of {_amount(1 / ratio)}"


def reciprocal(got: float, expected: float, rel: float = 1e-6, *, scaled: bool = False, by_hand: bool = False) -> str:
    """The expected answer upside down; with ``scaled``, also upside down and off by a unit factor.

    The scaled reading fits any two numbers whose product happens to be one of ~30 factors, so it is evidence
    only when another input gives the same product: a caller that can check that (:func:`candidates`, whose
    key carries the product) asks for it; one number alone never gets it. ``by_hand``: for a number the learner
    typed, the formula's shape is named, not the one step (1 / x) from their number to the answer.
    """
    if not got or not expected:
        return ""
    product = got * expected
    if close(product, 1.0, rel):
        if by_hand:
            return "Is the formula upside down (a / b instead of b / a)?"
        return "It is the reciprocal of the right answer: is the formula upside down (a / b instead of b / a)?"
    if not scaled:
        return ""
    for factor, _ in _scales():
        for target in (factor, 1 / factor):
            if close(product, target, rel):
                return (
                    f"It is the reciprocal of the right answer times {target:g}: is the formula upside down, "
                    "and are the units converted?"
                )
    return ""


def rounded(got: float, expected: float) -> str:
    """The right value rounded or cut to a few decimals (or to a whole number) before it was returned."""
    if not expected or close(got, expected, 1e-12):
        return ""
    for digits in range(0, 7):
        scale = 10.0**digits
        for cut in (
            round(expected, digits),
            math.trunc(expected * scale) / scale,
            math.floor(expected * scale) / scale,
        ):
            if cut and close(got, cut, 1e-12):  # a 0 is what many slips return: not evidence of rounding
                places = (
                    "a whole number (its decimals dropped)"
                    if digits == 0
                    else f"{digits} decimal place{'s' if digits > 1 else ''}"
                )
                return (
                    f"It is the right value rounded to {places}: keep the full value (no int(), round(), // or "
                    "formatting); the grader allows for floating-point error."
                )
    for digits in range(1, 4):  # significant figures, as a learner copying from a calculator does
        if close(got, float(f"{expected:.{digits}g}"), 1e-12):
            return "It is the right value rounded to a few significant figures: keep the full value."
    return ""


def near_miss(got: float, expected: float, rel: float, *, by_hand: bool = False) -> str:
    """Close but outside the tolerance. No cause is guessed: a rounded constant, a count off by one among
    thousands and a term left out that is small here all give a near miss, and one number cannot tell them apart.
    ``by_hand``: the learner typed the number, so how far off it is (which would give the answer in a step) is not
    said, only that it is close."""
    if not expected:
        return ""
    off = abs(got / expected - 1)
    if rel < off < 0.02:
        how_close = "close" if by_hand else f"close ({off:.2%} off)"
        return (
            f"It is {how_close} but not within the tolerance: something small is off, so check each number and "
            "each term against the docstring."
        )
    return ""


def sign(got: float, expected: float, rel: float = 1e-6) -> str:
    if expected and close(got, -expected, rel):
        return "It has the wrong sign: check the order of a subtraction."
    return ""


def not_a_number(value: Any) -> str:
    """Why a non-number cannot be the answer, or '' if it is a number."""
    if value is None:
        return "It returned None: did you forget the `return` statement?"
    if isinstance(value, bool):
        return "It is a bool (True/False), not a number: return the computed number."
    if isinstance(value, str):
        return 'It is a string: give the number itself, e.g. `12.5`, not `"12.5"` or `"12.5 GB"`.'
    if isinstance(value, (list, tuple)):
        return (
            f"It is {kind(value)} of {len(value)} item{'' if len(value) == 1 else 's'}, not a number: return one "
            "number (if these are parts of the answer, add them up)."
        )
    if number(value) is None:
        return f"It is {kind(value)}; expected a number (an int or a float)."
    return ""


def constant(values: Sequence[Any], expecteds: Sequence[float], rel: float = 1e-6) -> str:
    """Whether answers for different inputs are all the same number while the right answers differ."""
    nums = [n for n in map(number, values) if n is not None]
    if len(nums) < 2 or len(nums) != len(values):
        return ""
    first = nums[0]
    if all(close(n, first, 1e-12) for n in nums) and not all(close(e, expecteds[0], rel) for e in expecteds):
        return (
            f"It gives the same answer, {first:.6g}, whatever the inputs: is it hard-coded? Compute it from the "
            "arguments."
        )
    return ""


@dataclass(frozen=True)
class Candidate:
    """One slip that would explain a wrong value: ``key`` names the slip's kind across inputs (a factor, a
    lesson's own slip, rounding), so the same slip seen on two inputs has the same key; ``sentence`` says it."""

    key: str
    sentence: str


def candidates(
    value: Any,
    expected: float,
    *,
    unit: str = "",
    rel: float = 1e-6,
    known: Iterable[tuple[str, float]] = (),
    by_hand: bool = False,
) -> list[Candidate]:
    """Every slip that explains ``value`` where ``expected`` was right, likeliest first ([] if none or right).

    ``known`` are the lesson's own slips, (sentence, the value that slip gives), tried first. More than one
    candidate means this input cannot tell them apart: call again with other inputs and keep the slips both
    answers share (:func:`confirmed`). ``by_hand``: ``value`` is a number the learner typed, so no sentence
    says by what factor it is off (:func:`unit_slip`), which would hand over the answer.
    """
    why = not_a_number(value)
    if why:
        return [Candidate(f"type:{kind(value)}", why)]
    got = number(value)
    if got is None:  # not_a_number found nothing to say either: not sure, so say nothing
        return []
    if not math.isfinite(got):
        return [Candidate("not finite", f"It is {got}: was there a division by zero or an overflow?")]
    if close(got, expected, 1e-12):  # ``rel`` is how close a slip must match; the caller judged the value wrong
        return []
    found: list[Candidate] = []
    slip = unit_slip(got, expected, unit, max(rel, 1e-6), by_hand=by_hand)
    upside_down = reciprocal(got, expected, max(rel, 1e-6), by_hand=by_hand)
    for sentence, wrong in known:
        if math.isfinite(wrong) and not close(wrong, expected, 1e-9) and close(got, wrong, max(rel, 1e-9)):
            # The lesson's slip is the cause; the factor it makes on these inputs is said as its effect only, so it
            # does not read as a second slip (a factor of 1,000 is otherwise the cue for a unit slip).
            if slip and by_hand:
                found.append(Candidate(f"known:{sentence}", sentence))
            elif slip:
                found.append(Candidate(f"known:{sentence}", f"{sentence} (That makes it {_off_by(slip.ratio)} here.)"))
            else:
                found.append(
                    Candidate(
                        f"known:{sentence}", f"{sentence} ({upside_down.split(':')[0]}.)" if upside_down else sentence
                    )
                )
    if slip:
        found.append(Candidate(f"factor:{slip.ratio:.6g}", slip.sentence))
    scaled = "" if slip or upside_down else reciprocal(got, expected, max(rel, 1e-6), scaled=True)
    for key, check in (
        ("reciprocal", "" if slip else upside_down),  # a plain factor is the likelier reading
        (f"reciprocal x {got * expected:.3g}", scaled),  # the same product on another input confirms it
        ("rounded", rounded(got, expected)),
        ("sign", sign(got, expected)),
        ("near miss", near_miss(got, expected, rel, by_hand=by_hand)),
    ):
        if check:
            found.append(Candidate(key, check))
    if expected and got and not found:
        ratio = got / expected
        way, factor = ("too big", ratio) if ratio > 1 else ("too small", 1 / ratio)
        if 2 < factor <= 1000 and close(factor, round(factor), 1e-9):
            amount = f"{way} by a whole factor" if by_hand else f"{way} by a factor of {round(factor)} exactly"
            found.append(
                Candidate(
                    f"factor:{ratio:.6g}",
                    f"It is {amount}: is a count or a factor applied where it should not be (or left out where it "
                    "should)?",
                )
            )
    return found


def _needs_a_second(candidate: Candidate) -> bool:
    """A scaled reciprocal fits too many pairs of numbers to be named from one answer: only a second input
    giving the same product shows it."""
    return candidate.key.startswith("reciprocal x")


def confirmed(first: Sequence[Candidate], second: Sequence[Candidate] | None) -> Candidate | None:
    """The likeliest slip of ``first`` that ``second`` (the same function on other inputs) shows too, or None.

    ``second`` is None when the other inputs gave no wrong answer to compare (the call was right, or raised):
    then only a slip that is the one candidate of ``first`` is named.
    """
    if second is None:
        return first[0] if len(first) == 1 and not _needs_a_second(first[0]) else None
    keys = {c.key for c in second}
    return next((c for c in first if c.key in keys), None)


#: Said when the answers on two inputs point at different slips (or one input fits several): no guess.
UNSURE = (
    "I can't tell which slip this is: on other inputs it is off in another way, so check the formula against "
    "the docstring step by step."
)


def explain(
    value: Any,
    expected: float,
    *,
    unit: str = "",
    rel: float = 1e-6,
    known: Iterable[tuple[str, float]] = (),
    by_hand: bool = False,
) -> str:
    """The likeliest slip behind ``value`` where ``expected`` was right, as one sentence, or ''.

    ``known`` are the lesson's own slips, (sentence, the value that slip gives), tried first. For a value
    that can be asked again on other inputs, prefer :func:`candidates` and :func:`confirmed`. ``by_hand``: as
    :func:`candidates` says.
    """
    found = [
        c
        for c in candidates(value, expected, unit=unit, rel=rel, known=known, by_hand=by_hand)
        if not _needs_a_second(c)
    ]
    return found[0].sentence if found else ""


# -- structural slips: the reference itself, called or written a little differently -----------------------------
#
# Some slips are not a wrong factor but a wrong shape: two arguments passed in each other's places (often in a call
# to a helper), an argument ignored for a number from the page, a fraction read as a percentage, brackets left out
# so that operator precedence splits a sum or a product, a guard that returns 0 for an input of 0, a count one off
# only at an exact fit. Each is the reference function itself with one change, so it is found by calling the
# reference so changed on every input a check saw, and named only when it gives every result seen and no other
# such change does (one misconception read two ways, a swap in a helper's call that is a swap of the function's own
# arguments, is said once).

#: What a function returned on inputs it was called with: (the inputs by parameter name, the result).
Seen = tuple[Mapping[str, Any], Any]

#: A changed reference, called with a call's inputs by parameter name.
_Rule = Callable[[Mapping[str, Any]], Any]

#: Factors an argument may have been scaled by, with what that reads as.
_ARGUMENT_SCALES: tuple[tuple[float, str], ...] = (
    (0.01, "divided by 100, as if it were a percentage: it is already a fraction (0.1 for 10%)"),
    (100.0, "multiplied by 100, a fraction made a percentage: use it as the fraction it is"),
    (2.0, "doubled: is it counted twice, or multiplied by 2 where no 2 belongs?"),
    (0.5, "halved: is it divided by 2 where no 2 belongs?"),
)

#: A count's roundings that are off by one only on one side of a whole quotient: (key, sentence, rounding).
_EXACT_ROUNDINGS: tuple[tuple[str, str, Callable[[float], int]], ...] = (
    (
        "ceil - 1",
        "it is one less than the quotient rounded up (ceil - 1, what `(a - 1) // b` gives): that is the quotient "
        "rounded down, except where the quotient is a whole number (an exact fit), where it is one less still",
        lambda q: math.ceil(q) - 1,
    ),
    (
        "floor + 1",
        "it is one more than the quotient rounded down (floor + 1, what `a // b + 1` gives): that is the quotient "
        "rounded up, except where the quotient is a whole number (an exact fit), where it is one more still",
        lambda q: math.floor(q) + 1,
    ),
)

_BINARY_OPERATORS = frozenset({"+", "-", "*", "/", "//", "%", "**", "@"})
_LAYOUT = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})


@dataclass(frozen=True)
class _Variant:
    """One structural change of the reference: ``key`` (its family first: ``order:``, ``fixed:``, ...), the
    sentence that names it (no closing full stop) and the changed reference."""

    key: str
    sentence: str
    rule: _Rule


def _numeric(value: Any) -> bool:
    got = number(value)
    return got is not None and math.isfinite(got)


def _agrees(got: Any, want: Any) -> bool:
    """Whether a learner's result ``got`` is what a changed reference gives, ``want`` (to 1e-9 relative; a verdict,
    a bool, exactly)."""
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and got is want
    a, b = number(got), number(want)
    return a is not None and b is not None and math.isfinite(a) and math.isfinite(b) and close(a, b, 1e-9)


def _shown(c: float) -> str:
    """A constant as a learner writes it: 64, 0.02, 3.958e15."""
    return f"{c:g}".replace("e+", "e")


def _calls(spec: Callable[..., Any], args: Mapping[str, Any]) -> Any:
    """``spec`` on ``args``, by name, or None where it fails (a change may divide by zero where the spec does not)."""
    try:
        return spec(**args)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _safely(rule: _Rule, args: Mapping[str, Any]) -> Any:
    """A changed reference on a call's inputs, or None where it fails (0 squared in a denominator)."""
    try:
        return rule(args)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _swapped(spec: Callable[..., Any], p: str, q: str, args: Mapping[str, Any]) -> Any:
    return _calls(spec, {**args, p: args[q], q: args[p]})


def _fixed(spec: Callable[..., Any], p: str, value: Any, args: Mapping[str, Any]) -> Any:
    return _calls(spec, {**args, p: value})


def _scaled_argument(spec: Callable[..., Any], p: str, factor: float, args: Mapping[str, Any]) -> Any:
    return _calls(spec, {**args, p: args[p] * factor})


def _times_squared(spec: Callable[..., Any], p: str, power: int, args: Mapping[str, Any]) -> Any:
    got = number(_calls(spec, args))
    return None if got is None else got * float(args[p]) ** power


def _rounded_quotient(unrounded: Callable[..., Any], rounding: Callable[[float], int], args: Mapping[str, Any]) -> Any:
    quotient = number(_calls(unrounded, args))
    return None if quotient is None or not math.isfinite(quotient) else rounding(quotient)


#: How many specs (and changed versions of them) the caches below keep: a lesson has a few dozen functions.
_SPECS_KEPT = 512


@lru_cache(maxsize=_SPECS_KEPT)
def _source(spec: Callable[..., Any]) -> str:
    """The spec's source, dedented, or '' where it has none to read (a builtin, a lambda in a table).

    Kept per spec (as the changed versions below are): a spec is a lesson's reference function, read and parsed
    again for every wrong answer it explained (~5 ms of a partly wrong Decode notebook), though it never changes
    while its suites are loaded. A lesson loaded again has new functions, so new keys."""
    try:
        source = textwrap.dedent(inspect.getsource(spec))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return ""
    defines = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == spec.__name__]
    return source if len(tree.body) == 1 and defines else ""


def _rebuilt(spec: Callable[..., Any], tree: ast.Module) -> Callable[..., Any] | None:
    """The function ``tree`` (``spec``'s source, changed) defines, in ``spec``'s globals (its helpers), or None."""
    namespace: dict[str, Any] = dict(getattr(spec, "__globals__", {}))
    try:
        exec(compile(ast.fix_missing_locations(tree), f"<{spec.__name__}, changed>", "exec"), namespace)  # noqa: S102
    except Exception:  # noqa: BLE001 (a spec that cannot be rebuilt has no such variant)
        return None
    rebuilt = namespace.get(spec.__name__)
    return rebuilt if callable(rebuilt) else None


def _operand_before(tokens: Sequence[tokenize.TokenInfo], i: int) -> bool:
    """Whether ``tokens[i - 1]`` ends an operand (a name that is no keyword, a number, a string, a closing bracket),
    so that an operator at ``tokens[i]`` is binary (``-`` in ``-(-a // b)`` is unary)."""
    if i == 0:
        return False
    before = tokens[i - 1]
    if before.type == tokenize.OP:
        return before.string in ")]}"
    return not (before.type == tokenize.NAME and keyword.iskeyword(before.string))


def _grouping_brackets(source: str) -> list[tuple[int, int]]:
    """The character offsets of every pair of grouping brackets (not a call's or a tuple's) beside a binary
    operator in ``source``: ``(n_out - 1)`` in ``ttft + (n_out - 1) * itl``."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _LAYOUT]
    except (tokenize.TokenError, SyntaxError):
        return []
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    pairs: list[tuple[int, int]] = []
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.OP:
            continue
        if tok.string in "([{":
            stack.append(i)
        elif tok.string in ")]}" and stack:
            start = stack.pop()
            if tokens[start].string != "(" or _operand_before(tokens, start):
                continue  # a call's brackets, or a subscript's
            binary_before = (
                start > 0 and tokens[start - 1].string in _BINARY_OPERATORS and _operand_before(tokens, start - 1)
            )
            binary_after = i + 1 < len(tokens) and tokens[i + 1].string in _BINARY_OPERATORS
            if binary_before or binary_after:
                first, last = tokens[start].start, tok.start
                pairs.append((starts[first[0] - 1] + first[1], starts[last[0] - 1] + last[1]))
    return pairs


@lru_cache(maxsize=_SPECS_KEPT)
def _without_brackets(spec: Callable[..., Any]) -> tuple[tuple[str, Callable[..., Any]], ...]:
    """``spec`` with one pair of grouping brackets beside a binary operator left out, each with the text the
    brackets held: every version that Python then parses differently (``a * (b + c)`` written ``a * b + c``)."""
    source = _source(spec)
    if not source:
        return ()
    original = ast.dump(ast.parse(source))
    out = []
    for a, b in _grouping_brackets(source):
        try:
            tree = ast.parse(f"{source[:a]} {source[a + 1 : b]} {source[b + 1 :]}")
        except SyntaxError:
            continue
        rebuilt = _rebuilt(spec, tree) if ast.dump(tree) != original else None
        if rebuilt is not None:
            out.append((" ".join(source[a + 1 : b].split()), rebuilt))
    return tuple(out)


@lru_cache(maxsize=_SPECS_KEPT)
def _calls_reordered(spec: Callable[..., Any]) -> tuple[tuple[str, str, Callable[..., Any], tuple[str, ...]], ...]:
    """``spec`` with the positional arguments of one call in its source in another order: (the call as written,
    as changed, the changed function, the two names it swaps when the change is two bare names in each other's
    places, else ()). Every order of a call of up to 4 arguments, two swapped in a longer one:
    ``request_latency(ttft, itl, n_out)`` called as ``request_latency(n_out, ttft, itl)``, in the caller's order."""
    source = _source(spec)
    if not source:
        return ()

    def calls(tree: ast.Module) -> list[ast.Call]:
        return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and len(n.args) >= 2]

    out: list[tuple[str, str, Callable[..., Any], tuple[str, ...]]] = []
    for k, call in enumerate(calls(ast.parse(source))):
        n = len(call.args)
        if any(isinstance(a, ast.Starred) for a in call.args):
            continue
        orders: list[tuple[int, ...]] = (
            [o for o in itertools.permutations(range(n)) if o != tuple(range(n))]
            if n <= 4
            else [
                tuple(b if m == a else a if m == b else m for m in range(n))
                for a, b in itertools.combinations(range(n), 2)
            ]
        )
        for order in orders:
            tree = ast.parse(source)
            target = calls(tree)[k]
            target.args = [target.args[m] for m in order]
            rebuilt = _rebuilt(spec, tree)
            moved = [call.args[m] for m in range(n) if order[m] != m]
            names = tuple(a.id for a in moved if isinstance(a, ast.Name))
            if rebuilt is not None:
                out.append(
                    (ast.unparse(call), ast.unparse(target), rebuilt, names if len(moved) == len(names) == 2 else ())
                )
    return tuple(out)


def _one_use_fixed(
    spec: Callable[..., Any], params: Sequence[str], constants: Mapping[str, Sequence[Any]]
) -> list[tuple[str, Any, int, Callable[..., Any]]]:
    """``spec`` with one use of a parameter (of several in its source) replaced by a constant: (the parameter, the
    constant, which use, the changed function), for each of its ``constants``: ``batch / step(..., batch, ...)``
    written ``64 / step(..., batch, ...)``."""
    out = []
    for p in params:
        count = _use_count(spec, p)
        for k in range(count if count > 1 else 0):
            for c in constants.get(p, ()):
                rebuilt = _one_use_changed(spec, p, k, c, repr(c))
                if rebuilt is not None:
                    out.append((p, c, k, rebuilt))
    return out


def _uses(tree: ast.Module, p: str) -> list[ast.Name]:
    """Every place ``tree`` reads the name ``p``, in the order :func:`ast.walk` meets them."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == p]


@lru_cache(maxsize=_SPECS_KEPT)
def _use_count(spec: Callable[..., Any], p: str) -> int:
    """How many times ``spec``'s source reads ``p`` (0 where it has no source)."""
    source = _source(spec)
    return len(_uses(ast.parse(source), p)) if source else 0


class _Replace(ast.NodeTransformer):
    """Puts ``value`` in place of the one name ``node``."""

    def __init__(self, node: ast.Name, value: Any) -> None:
        self.node, self.value = node, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Constant(self.value), node) if node is self.node else node


@lru_cache(maxsize=8 * _SPECS_KEPT)
def _one_use_changed(spec: Callable[..., Any], p: str, k: int, c: Any, shown: str) -> Callable[..., Any] | None:
    """``spec`` with its ``k``-th use of ``p`` replaced by the constant ``c``; None if that does not rebuild.
    ``shown`` is ``repr(c)``, only so that the cache tells apart constants that are equal but build other code
    (``1`` and ``1.0``, ``0.0`` and ``-0.0``)."""
    tree = ast.parse(_source(spec))
    changed = _Replace(_uses(tree, p)[k], c).visit(tree)
    return _rebuilt(spec, changed) if isinstance(changed, ast.Module) else None


def _variants(
    spec: Callable[..., Any],
    params: Sequence[str],
    seen: Sequence[Seen],
    page: Sequence[Mapping[str, Any]],
    unrounded: Callable[..., Any] | None,
) -> list[_Variant]:
    """Every structural change of ``spec`` :func:`structural` tries."""
    numeric = [p for p in params if all(_numeric(args.get(p)) for args, _ in seen)]
    out: list[_Variant] = []
    if unrounded is not None:
        for key, sentence, rounding in _EXACT_ROUNDINGS:
            out.append(_Variant(key, sentence, partial(_rounded_quotient, unrounded, rounding)))
    for i, p in enumerate(numeric):
        for q in numeric[i + 1 :]:
            out.append(
                _Variant(
                    f"order:`{p}` and `{q}` in each other's places",
                    f"`{p}` and `{q}` are swapped: the result is what the formula gives with each in the other's "
                    "place. Check the order of the arguments in each call (a function's parameters are in its own "
                    "order: see its docstring) and in the formula",
                    partial(_swapped, spec, p, q),
                )
            )
    constants: dict[str, list[Any]] = {}
    for p in numeric:
        values = {float(args[p]) for args, _ in seen} | {float(a[p]) for a in page if _numeric(a.get(p))} | {0.0, 1.0}
        whole = all(isinstance(args[p], int) for args, _ in seen)
        for c in sorted(values):
            value: Any = int(c) if whole and c.is_integer() else c
            constants.setdefault(p, []).append(value)
            how = (
                f"Is `{p}` left out of the formula? Use it"
                if c in (0.0, 1.0)
                else f"Is a number from the page written in place of `{p}`? Use the argument"
            )
            out.append(
                _Variant(
                    f"fixed:{p}:{_shown(c)}:all",
                    f"`{p}` is ignored: every result is what the formula gives with `{p}` = {_shown(c)}, whatever "
                    f"`{p}` is. {how}",
                    partial(_fixed, spec, p, value),
                )
            )
        for factor, words in _ARGUMENT_SCALES:
            out.append(
                _Variant(f"scaled:{p}:{factor:g}", f"`{p}` is {words}", partial(_scaled_argument, spec, p, factor))
            )
        for power, way in ((2, "times"), (-2, "divided by")):
            out.append(
                _Variant(
                    f"squared:{p}:{power}",
                    f"it is the right value {way} `{p}` squared: `{p}` multiplies where it should divide (or divides "
                    f"where it should multiply), as when brackets are left out round a denominator (`x / 2 * {p}` is "
                    f"`(x / 2) * {p}`, not `x / (2 * {p})`)",
                    partial(_times_squared, spec, p, power),
                )
            )
    for p, c, k, rebuilt in _one_use_fixed(spec, params, constants):
        out.append(
            _Variant(
                f"fixed:{p}:{_shown(c)}:use {k}",
                f"one use of `{p}` is a fixed number: every result is what the formula gives with {_shown(c)} in "
                f"place of `{p}` at one of the places it is used, whatever `{p}` is. Is a number from the page "
                f"written there? Use `{p}` everywhere it belongs",
                partial(_calls, rebuilt),
            )
        )
    for written, changed, rebuilt, names in _calls_reordered(spec):
        pair = [p for p in numeric if p in names]
        out.append(
            _Variant(
                # two of the function's own arguments swapped in the call is their swap, one reading said once
                f"order:`{pair[0]}` and `{pair[1]}` in each other's places"
                if len(pair) == 2
                else f"order:`{changed}` where `{written}` belongs",
                f"the arguments of a call are in another order: every result is what `{changed}` gives where "
                f"`{written}` belongs. A function's parameters are in its own order (see its docstring), not the "
                "caller's",
                partial(_calls, rebuilt),
            )
        )
    for text, rebuilt in _without_brackets(spec):
        out.append(
            _Variant(
                f"brackets:{text}",
                f"the brackets round `{text}` are left out, so operator precedence (* and / before + and -, left to "
                "right) splits what they held: put them back",
                partial(_calls, rebuilt),
            )
        )
    return out


def _zero_guard(spec: Callable[..., Any], params: Sequence[str], seen: Sequence[Seen]) -> Candidate | None:
    """A result of 0 exactly where an argument is 0 (and the right answer is not 0), every other result right."""
    zeros = [(args, got) for args, got in seen if number(got) == 0 and not _agrees(got, _calls(spec, args))]
    rest = [(args, got) for args, got in seen if number(got) != 0 or _agrees(got, _calls(spec, args))]
    if not zeros or not rest or not all(_agrees(got, _calls(spec, args)) for args, got in rest):
        return None
    zero_args = [[p for p in params if number(args.get(p)) == 0] for args, _ in zeros]
    if not all(zero_args):
        return None
    names = " or ".join(f"`{p}`" for p in dict.fromkeys(p for group in zero_args for p in group))
    return Candidate(
        "zero guard",
        f"it returns 0 where {names} is 0, and the right answer on every other input tried: does a guard for a "
        "zero return 0 early? The formula holds at 0 too (its answer there is not 0), so follow it there as "
        "everywhere",
    )


def _merged(found: list[Candidate]) -> list[Candidate]:
    """The slips found, one misconception read several ways said once: arguments in another order, however many
    orders give the results (two of the function's own arguments swapped in a helper's call is their swap, said once
    in the function's own terms), or one argument fixed to one constant, wherever. Two different orders that give
    the same results on every input tried (the FLOPs and the bytes swapped in a call, or the peak and the
    bandwidth it divides them by) are both said: naming one could name what the learner did not do."""
    if len(found) > 1 and all(c.key.startswith("order:") for c in found):
        own = list(dict.fromkeys(c.key.removeprefix("order:") for c in found))
        if len(own) == 1:
            return [next(c for c in found if c.key == f"order:{own[0]}")]
        shown = "; or ".join(own[:3]) + ("; or others" if len(own) > 3 else "")
        return [
            Candidate(
                "order",
                f"arguments are in each other's places: every result is what the formula gives with {shown}. Check "
                "the order of the arguments in each call (a function's parameters are in its own order: see its "
                "docstring) and in the formula",
            )
        ]
    if len(found) > 1 and found[0].key.startswith("fixed:") and len({c.key.rsplit(":", 1)[0] for c in found}) == 1:
        return [next((c for c in found if c.key.endswith(":all")), found[0])]
    return found


def structural(
    spec: Callable[..., Any],
    params: Sequence[str],
    seen: Sequence[Seen],
    page: Sequence[Mapping[str, Any]] = (),
    unrounded: Callable[..., Any] | None = None,
) -> list[Candidate]:
    """Every structural slip of ``spec`` (the reference, called by the parameter names ``params``) that gives every
    result in ``seen``, the first of which is wrong: two arguments swapped (or the arguments of a call in the
    spec's source in another order), one argument replaced by a constant everywhere or at one of its uses (a value
    it takes on another input seen or in ``page``, the notebook's worked examples; or 0 or 1, as when it is left
    out), one scaled (a fraction read as a percentage, a term doubled) or a right value off by an argument squared,
    one pair of the spec's brackets left out (operator precedence, read from the spec's source), or 0 returned
    exactly where an argument is 0 and every other result right. For a count, ``unrounded`` (its quotient before
    rounding, called as ``spec`` is) adds the roundings off by one only at a whole quotient, ceil - 1 and floor + 1.
    A candidate's sentence has no closing full stop.

    A change is kept only when it gives another answer than the reference on the first input (that result is
    wrong) and gives every result seen, to 1e-9 relative. With the probes a check makes a chance match is all but
    impossible, but changes may agree with one another (a product's factors are interchangeable): a caller names a
    slip only when exactly one is found. The same answer on every input is a constant, which many changes give (a
    product with one factor 0): none is offered for it.
    """
    if not seen:
        return []
    (first_args, first), *rest = seen
    right = _calls(spec, first_args)
    if _agrees(first, right):
        return []
    guard = _zero_guard(spec, params, seen)
    if guard is not None:
        return [guard]
    if rest and all(_agrees(got, first) or got == first for _, got in rest):
        return []
    found = [
        Candidate(v.key, v.sentence)
        for v in _variants(spec, params, seen, page, unrounded)
        if not _agrees(right, _safely(v.rule, first_args)) and all(_agrees(got, _safely(v.rule, a)) for a, got in seen)
    ]
    return _merged(found)


def structural_slip(
    spec: Callable[..., Any],
    params: Sequence[str],
    seen: Sequence[Seen],
    page: Sequence[Mapping[str, Any]] = (),
    unrounded: Callable[..., Any] | None = None,
) -> str:
    """The sentence of the one structural slip that gives every result seen (:func:`structural`), as a sentence
    of its own, else ''."""
    found = structural(spec, params, seen, page, unrounded)
    if len(found) != 1:
        return ""
    sentence = found[0].sentence
    return f"{sentence[0].upper()}{sentence[1:]}."
