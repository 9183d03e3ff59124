"""Naming the slip must not hand over the answer (issue 33, class 5): for every by-hand question of every lesson, on
every set of numbers the corpus grades, every known slip's number and the generic ones (a unit factor either way,
the reciprocal, a near miss either way, one more or one fewer for a count) are graded through the hidden suites,
and no message a learner sees states the right value, nor an operation (a stated factor, a one, a rounding, a
reciprocal, a percentage off) that turns the learner's own number into it. The teaching assistant's view still
states the right value: the reveal policy (grader/reveal.py) keeps the two apart. The sentences every wrong answer
to a question is told (what the answer is, the lesson's method for it) name no slip: they are searched for the
right value, not for operations.

A misconception may be named with the units and the counts of the question ("the answer in bytes: the question
asks for GB", "one layer only: each of the 32 layers stores its own"): that is the misconception itself. What is
refused is the arithmetic to apply ("divide by 1e9 for GB", "one too many ... (round down)", "x 1000").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from grader.lessons import load_lesson
from grader.model import Lesson
from grader.params import spread
from grader.reveal import learner_view, staff_view
from grader.suites.session import SuiteSession
from tests import lesson_support as page

#: A number as a message writes it: 1,000, 0.4, 1e9, 10^9, 2**30, 40%.
_NUMBER = r"(\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|\d+\s*(?:\^|\*\*)\s*\d+)(\s*%)?"
#: An operation with a stated amount: "x 1000", "/ 1e9", "divide by 1e9", "a factor of 1,000", "add 2".
_OPERATION = re.compile(
    r"(?:(?<![\w])x|\*|/|÷|\bby|\btimes|\bfactor of|\badd|\bsubtract|\bplus|\bminus|\bmultiply)\s+" + _NUMBER,
    re.IGNORECASE,
)
#: The same, the amount first: "1,000 times too big".
_TIMES = re.compile(_NUMBER + r"\s+times\s+(?:too|as|more|less|fewer|bigger|smaller)\b", re.IGNORECASE)
#: An operation asked for with its amount later in the clause: "divide it by the count, 10".
_ASKED = re.compile(
    r"(?<!\ba )(?<!\ban )(?<!\bthe )\b(?:divide|multiply|add|subtract)\b[^.;:?]*?(?<![\w.])" + _NUMBER, re.IGNORECASE
)
#: An operation said in words, with the amount it stands for.
_WORDED = (
    (re.compile(r"\bone too (?:many|few)\b|\bby one\b|\bone (?:more|less|fewer) than\b|\boff by one\b", re.I), 1.0),
    (
        re.compile(r"\bexactly (?:half|twice|double)\b|\bhalve\b|\bdouble it\b|\btwice as (?:big|large|much)\b", re.I),
        2.0,
    ),
    (re.compile(r"\b(?:a )?thousand times\b", re.I), 1e3),
)
#: How far off, in per cent: "(1.23% off)" turns the number into the answer in a step (either way).
_OFF = re.compile(_NUMBER + r"\s+off\b", re.IGNORECASE)
_RECIPROCAL = re.compile(r"\breciprocal\b|\b1 / (?:it|that|your)\b", re.I)
_ROUND = re.compile(r"\bround (?:it |them |that )?(?:down|up)\b|\(round (?:down|up)\)", re.I)


def _amount(text: str) -> float | None:
    digits = text.replace(",", "").replace(" ", "")
    for power in ("^", "**"):
        if power in digits:
            base, _, exponent = digits.partition(power)
            return float(base) ** float(exponent)
    try:
        return float(digits)
    except ValueError:
        return None


def _amounts(text: str) -> Iterator[tuple[str, float]]:
    """Every amount the text states as an operation, with the words it was read from."""
    for pattern in (_OPERATION, _TIMES, _ASKED):
        for match in pattern.finditer(text):
            amount = _amount(match.group(1))
            if amount is not None:
                yield match.group(0), amount
                if match.group(2):
                    yield match.group(0), amount / 100
    for pattern, amount in _WORDED:
        for match in pattern.finditer(text):
            yield match.group(0), amount


def _stated(text: str, got: float, expected: float) -> list[str]:
    """The numbers of ``text`` (read whole: 13e9 is not 13, 97.27 not 97) that are ``expected`` to the 3 figures a
    learner would copy, but for the learner's own number shown back and for one-figure numbers (2 bytes, 4 bits)."""
    out = []
    for match in re.finditer(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?", text):
        shown = match.group(0)
        amount = _amount(shown.lstrip("-"))
        if amount is None or sum(ch.isdigit() for ch in shown.split("e")[0]) < 2:
            continue
        if math.isclose(amount, abs(got), rel_tol=1e-5):
            continue
        if math.isclose(amount, abs(expected), rel_tol=5e-3):
            out.append(shown)
    return out


def routes(
    text: str, got: float, expected: float, method: frozenset[str] = frozenset(), rel: float = 1e-6
) -> list[str]:
    """The parts of a learner's message that turn ``got`` into ``expected`` in one step (exactly, for the numbers
    tried are the slips' own): a stated amount added, taken away, multiplied or divided by, a reciprocal, a
    rounding asked for; and the right value itself, anywhere. ``method``: the sentences every wrong answer to the
    question is told (its meaning and the lesson's method for it), which name no slip and are not searched for
    routes."""

    def hits(value: float) -> bool:
        return math.isfinite(value) and math.isclose(value, expected, rel_tol=rel, abs_tol=1e-12)

    found = [f"states the right value as {shown!r}" for shown in _stated(text, got, expected)]
    text = " ".join(s for s in _sentences(text) if s not in method)
    for words, n in _amounts(text):
        if n and any(hits(v) for v in (got + n, got - n, got * n, got / n)):
            found.append(f"{words!r} turns {got:g} into the answer")
    for match in _OFF.finditer(text):
        off = _amount(match.group(1))
        if match.group(2) and off is not None:
            off /= 100
        if off and any(hits(got / (1 + sign * off)) for sign in (1, -1)):
            found.append(f"{match.group(0)!r} turns {got:g} into the answer")
    if got and _RECIPROCAL.search(text) and hits(1 / got):
        found.append(f"'reciprocal' turns {got:g} into the answer")
    match = _ROUND.search(text)
    if match and (hits(math.floor(got)) or hits(math.ceil(got))):
        found.append(f"{match.group(0)!r} turns {got:g} into the answer")
    return found


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.?!])\s+(?=[A-Z`\d])", text) if s.strip()]


def test_the_rule_catches_the_routes_it_is_for() -> None:
    """The messages issue 33 quotes, and the ones this change rewrote, are caught; their rewordings are not."""
    assert routes("That is one too many: a batch that large takes longer than 10 ms a step (round down).", 98, 97)
    assert routes("That is the answer in bytes: divide by 1e9 for GB.", 3.2e9, 3.2)
    assert routes("That is the time in seconds: the question asks for milliseconds (x 1000).", 0.0123, 12.3)
    assert routes("It is too big by a factor of 1,000: did you give milliseconds instead of seconds?", 1230, 1.23)
    assert routes("That is the ITL itself, in seconds: the rate is its reciprocal.", 0.032, 31.25)
    assert routes("That is the sum: divide it by the count, 10.", 3905, 390.5)
    assert routes("the time at 100% of the peak: divide by the 40% utilisation too", 4.0, 10.0)
    assert routes("`x` is 12.3, which is not right (expected 45.6).", 12.3, 45.6)
    assert routes("It is close (1.23% off) but not within the tolerance.", 101.23, 100.0, rel=1e-4)
    assert not routes("That is the answer in bytes: the question asks for GB.", 3.2e9, 3.2)
    assert not routes("That is one layer only: each of the 32 layers stores its own keys and values.", 4096, 131072)
    assert not routes(
        "the sequences that fit rounded up: the largest batch that meets the target is rounded down", 98, 97
    )


# -- every lesson's by-hand questions, their right values and their known slips, on one set of numbers ------------

Table = dict[str, tuple[float, list[float]]]


def _batching_like(values: Any, names: tuple[str, ...]) -> Callable[[dict[str, Any]], Table]:
    def table(numbers: dict[str, Any]) -> Table:
        part1 = values.Part1.of(numbers)
        return {name: (part1.value(name), [v for _, v in part1.known(name)]) for name in names}

    return table


def _prefill_like(values: Any) -> Callable[[dict[str, Any]], Table]:
    def table(numbers: dict[str, Any]) -> Table:
        part1 = values.Part1.of(numbers)
        known = part1.known()
        return {name: (row[0], [v for _, v in known[name]]) for name, row in part1.values().items()}

    return table


def _named_rows(rows: Callable[[Any], dict[str, tuple[float, Any]]], values: Any) -> Callable[[dict[str, Any]], Table]:
    """A lesson whose questions are named one by one: ``rows(part1)`` gives each (right value, its mistakes:
    a dict of sentence to value, or (formula, why, value) triples)."""

    def table(numbers: dict[str, Any]) -> Table:
        out: Table = {}
        for name, (right, slips) in rows(values.Part1.of(numbers)).items():
            wrong = list(slips.values()) if isinstance(slips, dict) else [slip[-1] for slip in slips]
            out[name] = (right, wrong)
        return out

    return table


def _decode(values: Any) -> Callable[[dict[str, Any]], Table]:
    further = page.suite_module(load_lesson("decode"), "test_going_further")
    return _named_rows(
        lambda p: {
            "gb_per_step": (p.gb, p.gb_mistakes()),
            "ms_per_token": (p.ms, p.ms_mistakes()),
            "max_tokens_per_s": (p.tokens_per_s, p.tokens_mistakes()),
            "intensity_4bit": (4.0, further.INTENSITY_KNOWN),
        },
        values,
    )


def _request(values: Any) -> Callable[[dict[str, Any]], Table]:
    return _named_rows(
        lambda p: {
            "latency_s": (p.latency, p.latency_mistakes()),
            "steady_tokens_per_s": (p.steady, p.steady_mistakes()),
            "request_tokens_per_s": (p.rate, p.rate_mistakes()),
            "mean_ms": (p.mean, p.mean_mistakes()),
            "p50_ms": (p.percentile(50), p.p50_mistakes()),
            "p99_ms": (p.percentile(99), p.p99_mistakes()),
        },
        values,
    )


def _table(lesson: Lesson) -> Callable[[dict[str, Any]], Table]:
    values = page.suite_module(lesson, "test_values")
    return {
        "batching": lambda: _batching_like(values, values.NAMES),
        "kv_cache": lambda: _batching_like(values, ("token_bytes", "budget_gb", "sequences_fit", "even_context")),
        "prefill": lambda: _prefill_like(values),
        "roofline": lambda: _prefill_like(values),
        "decode": lambda: _decode(values),
        "request": lambda: _request(values),
    }[lesson.id]()


#: The generic slips tried on every by-hand answer besides its known ones: a unit factor either way, the reciprocal
#: and a near miss either way (1.23% high, 1.23% low).
_FACTORS = (2.0, 8.0, 1e3, 1e6, 1e9, 1e12)


def _wrong_numbers(right: float, slips: list[float]) -> list[float]:
    generic = (
        [right * f for f in _FACTORS] + [right / f for f in _FACTORS] + [1 / right, right * 1.0123, right * 0.9877]
    )
    if float(right).is_integer():
        generic += [right + 1, right - 1]
    return [v for v in dict.fromkeys([*slips, *generic]) if math.isfinite(v) and v != right]


def _typed(value: float, right: float) -> float | int:
    """The number as a learner types it: a whole answer to a count as an int."""
    return int(value) if isinstance(right, int) and float(value).is_integer() else value


@pytest.mark.parametrize("lesson_id", ["request", "prefill", "decode", "roofline", "kv_cache", "batching"])
def test_no_by_hand_slip_message_hands_over_the_answer(
    lesson_id: str, suite_session: Callable[[Lesson], SuiteSession]
) -> None:
    from grader.suites.namespace import NamespaceTarget

    lesson = load_lesson(lesson_id)
    suites, table = suite_session(lesson), _table(lesson)
    by_hand = {q.id for q in lesson.questions if q.kind == "value"}
    problems: list[str] = []
    graded = 0
    for params in spread(lesson):
        rows = table(dict(params))
        assert set(rows) == by_hand, (lesson_id, sorted(rows), sorted(by_hand))
        right = {name: expected for name, (expected, _) in rows.items()}
        for name, (expected, slips) in rows.items():
            seen: list[tuple[float, str]] = []
            for wrong in _wrong_numbers(expected, slips):
                got = _typed(wrong, expected)
                (outcome,) = suites.run(NamespaceTarget({**right, name: got}), frozenset({name}), params)
                if outcome.status == "passed":
                    continue
                assert f"{float(expected):.6g}" in staff_view(outcome.message), (name, outcome.message)
                seen.append((float(got), learner_view(outcome.message)))
            assert len(seen) >= 10, (name, len(seen))  # else the sentences all share would be most of each
            graded += len(seen)
            method = frozenset.intersection(*(frozenset(_sentences(text)) for _, text in seen))
            for got, text in seen:
                for problem in routes(text, got, float(expected), method):
                    problems.append(f"{name} = {got!r} on {dict(params)}: {problem}: {text}")
    assert graded > 50, graded
    assert problems == [], "\n".join(problems[:20]) + f"\n({len(problems)} in all)"
