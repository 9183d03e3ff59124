"""Shared helpers for the hidden suites of the "Batching and throughput" lesson.

Test modules are imported with ``--import-mode=importlib``, so they reach these helpers through the ``batching``
fixture. Everything here runs in the trusted process: expected values come from the lesson's spec, never from
the learner's code.

How a wrong number is explained (issue 20: name a slip only where the evidence supports it). A function that
returns a wrong number is called once more, on its **probe**: fixed inputs on which every slip the lesson knows
gives a different value (``tests/test_lesson_batching.py`` checks that). A slip is named only when it explains
both results; a generic slip (a unit factor, a reciprocal, a rounding) only when it is the same on both; the
same number twice is a hard-coded answer; anything else is said plainly to be a slip the grader cannot tell.
``max_batch_for_itl`` returns a whole number, where one probe cannot tell its off-by-one slips apart (they
differ only at an exact tie or where no batch fits), so a wrong count is explained from the learner's answers on
a fixed **panel** of cases instead, as Prefill's comparison is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest

from grader.config import REL_TOL
from grader.diagnose import near_miss, not_a_number, number, reciprocal, rounded, unit_slip
from grader.testing import Call, LearnerRaised, Mismatch, close, show, withheld

# -- the spec, computed independently of any notebook ----------------------------------------------------------


def batch_step_seconds(
    param_bytes: float, kv_bytes_per_token: float, context_len: int, batch: int, bandwidth: float
) -> float:
    return (param_bytes + batch * context_len * kv_bytes_per_token) / bandwidth


def fleet_tokens_per_s(
    param_bytes: float, kv_bytes_per_token: float, context_len: int, batch: int, bandwidth: float
) -> float:
    return batch / batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth)


def batches_that_fit(
    param_bytes: float, kv_bytes_per_token: float, context_len: int, itl_target: float, bandwidth: float
) -> Fraction:
    """(itl_target x bandwidth - param_bytes) / (context_len x kv_bytes_per_token), exactly (no float rounding)."""
    spare = Fraction(itl_target) * Fraction(bandwidth) - Fraction(param_bytes)
    return spare / (Fraction(context_len) * Fraction(kv_bytes_per_token))


def max_batch_for_itl(
    param_bytes: float, kv_bytes_per_token: float, context_len: int, itl_target: float, bandwidth: float
) -> int:
    return max(0, math.floor(batches_that_fit(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth)))


def in_flight(arrival_rate: float, latency: float) -> float:
    return arrival_rate * latency


SPEC: dict[str, Callable[..., Any]] = {
    "batch_step_seconds": batch_step_seconds,
    "fleet_tokens_per_s": fleet_tokens_per_s,
    "max_batch_for_itl": max_batch_for_itl,
    "in_flight": in_flight,
}

#: The parameter names the notebook gives each function, in order.
STEP = ("param_bytes", "kv_bytes_per_token", "context_len", "batch", "bandwidth")
PARAMS: dict[str, tuple[str, ...]] = {
    "batch_step_seconds": STEP,
    "fleet_tokens_per_s": STEP,
    "max_batch_for_itl": ("param_bytes", "kv_bytes_per_token", "context_len", "itl_target", "bandwidth"),
    "in_flight": ("arrival_rate", "latency"),
}

UNITS = {"batch_step_seconds": "s", "fleet_tokens_per_s": "tokens/s", "in_flight": "requests"}

# -- the lesson's own slips: (what the learner did, in their words; the value it gives) ------------------------

SlipRule = tuple[str, Callable[..., float]]

SLIPS: dict[str, tuple[SlipRule, ...]] = {
    "batch_step_seconds": (
        ("the weights read once per sequence (batch x (param_bytes + one cache)): the whole batch shares one read "
         "of the weights", lambda W, k, C, B, bw: B * (W + C * k) / bw),
        ("one sequence's cache only: every sequence of the batch has its own cache, and the step reads them all",
         lambda W, k, C, B, bw: (W + C * k) / bw),
        ("the KV caches left out: the step reads every sequence's cache as well as the weights",
         lambda W, k, C, B, bw: W / bw),
        ("the weights left out: every step reads them once, whatever the batch",
         lambda W, k, C, B, bw: B * C * k / bw),
        ("the weights shared out per user (param_bytes / batch): that is each user's share, but the step reads "
         "all of them", lambda W, k, C, B, bw: (W / B + C * k) / bw),
        ("K and V counted again (2 x kv_bytes_per_token): kv_bytes_per_token already counts both",
         lambda W, k, C, B, bw: (W + 2 * B * C * k) / bw),
        ("the context left out of the cache: a sequence holds kv_bytes_per_token bytes for each of its "
         "context_len positions", lambda W, k, C, B, bw: (W + B * k) / bw),
    ),
    "fleet_tokens_per_s": (
        ("one user's rate (1 / step time): each of the batch sequences gains a token per step, so the fleet's "
         "is batch times that", lambda W, k, C, B, bw: bw / (W + B * C * k)),
        ("seconds per token (step time / batch): the rate is upside down",
         lambda W, k, C, B, bw: (W + B * C * k) / bw / B),
        ("the caches left out (batch x bandwidth / param_bytes): every step reads each sequence's cache too; "
         "call batch_step_seconds", lambda W, k, C, B, bw: B * bw / W),
        ("one sequence's cache only: the step reads all batch caches; call batch_step_seconds",
         lambda W, k, C, B, bw: B * bw / (W + C * k)),
        ("the weights read once per sequence: the batch shares one read; call batch_step_seconds",
         lambda W, k, C, B, bw: bw / (W + C * k)),
    ),
    "in_flight": (
        ("arrival_rate / latency: Little's law multiplies the rate by the time each request spends inside",
         lambda r, t: r / t),
        ("latency / arrival_rate: Little's law multiplies the rate by the time each request spends inside",
         lambda r, t: t / r),
        ("the rate and the time added: Little's law multiplies them", lambda r, t: r + t),
    ),
}

#: For each numeric function, inputs on which all its slips (and the right answer) differ from one another.
PROBES: dict[str, dict[str, Any]] = {
    "batch_step_seconds": {
        "param_bytes": 3.1e8, "kv_bytes_per_token": 230_000, "context_len": 1531, "batch": 7, "bandwidth": 1.7e12,
    },
    "fleet_tokens_per_s": {
        "param_bytes": 3.1e8, "kv_bytes_per_token": 230_000, "context_len": 1531, "batch": 7, "bandwidth": 1.7e12,
    },
    "in_flight": {"arrival_rate": 3.7, "latency": 5.3},
}

#: What to check when no known slip fits (said with "I can't tell which slip this is").
ADVICE = {
    "batch_step_seconds": "Check the formula: the weights once, plus batch caches of context_len x "
    "kv_bytes_per_token bytes, all over the bandwidth.",
    "fleet_tokens_per_s": "Check the formula: batch divided by batch_step_seconds with the same arguments.",
    "in_flight": "Check the formula: arrival_rate x latency.",
}


def _args_text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(show(args[p]) for p in PARAMS[name])})"


def _positional(name: str, args: dict[str, Any]) -> list[Any]:
    return [args[p] for p in PARAMS[name]]


def _matches(value: float, wrong: float, expected: float, rel: float) -> bool:
    return math.isfinite(wrong) and not close(wrong, expected, 1e-9) and close(value, wrong, rel)


def known_slips(name: str, value: float, args: dict[str, Any], rel: float = 1e-6) -> list[str]:
    """The lesson's slips of ``name`` that give ``value`` on ``args``."""
    expected = SPEC[name](**args)
    return [s for s, rule in SLIPS[name] if _matches(value, rule(*_positional(name, args)), expected, rel)]


def _generic(value: float, expected: float, unit: str) -> str:
    """A unit factor, a reciprocal or a rounding: sentences that depend only on the answer and the right one."""
    slip = unit_slip(value, expected, unit)
    if slip:
        return slip.sentence
    return reciprocal(value, expected) or rounded(value, expected)


def why_wrong(name: str, first: tuple[Any, dict[str, Any]], second: tuple[Any, dict[str, Any]] | None) -> str:
    """Why a wrong number is wrong, from two results of the learner's function (``second`` None if the probe
    call failed): a slip named only when it explains both."""
    (v1, a1) = first
    e1 = SPEC[name](**a1)
    why = not_a_number(v1)
    if why:
        return why
    value = float(v1)
    if not math.isfinite(value):
        return f"It is {value}: was there a division by zero or an overflow?"
    if second is None:
        return f"I can't tell which slip this is (the check on other inputs failed). {ADVICE[name]}"
    v2, a2 = second
    e2 = SPEC[name](**a2)
    n2 = number(v2)
    if n2 is not None and type(v1) is type(v2) and v1 == v2 and not close(e1, e2, 1e-9):
        return (
            f"{_args_text(name, a2)} returned {show(v2)} too: it gives the same answer whatever the inputs. Is it "
            "hard-coded, or copied from the worked example? Compute it from the arguments."
        )
    if n2 is None:
        return f"I can't tell which slip this is: {_args_text(name, a2)} returned {show(v2)}. {ADVICE[name]}"
    both = [s for s in known_slips(name, value, a1) if s in known_slips(name, n2, a2)]
    if len(both) == 1:
        return f"That is {both[0]}."
    g1, g2 = _generic(value, e1, UNITS[name]), _generic(n2, e2, UNITS[name])
    if g1 and g1 == g2:
        return g1
    close_miss = near_miss(value, e1, REL_TOL)
    if close_miss and near_miss(n2, e2, REL_TOL):
        return close_miss
    return (
        f"I can't tell which slip this is: it matches none of the usual ones, both here and for "
        f"{_args_text(name, a2)} (which returned {show(v2)}). {ADVICE[name]}"
    )


def _head(got: Call, expected: Any, unit: str = "") -> str:
    unit_text = f" {unit}" if unit else ""
    shown = show(expected) if isinstance(expected, int) else f"{expected:.6g}{unit_text}"
    return f"{got.text} returned {show(got.value)}, which is not right" + withheld(f" (expected {shown})") + "."


def call_with(learner: Any, name: str, args: dict[str, Any], keywords: bool = False) -> Call:
    """Call the learner's ``name`` positionally (or by the notebook's parameter names); say so plainly when a
    keyword call fails because a name was changed."""
    if not keywords:
        return learner.call(name, *_positional(name, args))
    try:
        return learner.call(name, **args)
    except LearnerRaised as err:
        text = str(err)
        if "TypeError" in text and ("keyword argument" in text or "missing" in text):
            raise LearnerRaised(
                f"{text}. Graders call `{name}` with the parameter names the notebook gives it "
                f"({', '.join(PARAMS[name])}); keep those names."
            ) from None
        raise


def check_number(learner: Any, name: str, keywords: bool = False, **args: Any) -> None:
    """Call the learner's numeric function ``name`` on ``args`` and compare with the spec; if it is wrong, call
    it once more on the function's probe and explain from both results."""
    got = call_with(learner, name, args, keywords)
    expected = SPEC[name](**args)
    value = number(got.value)
    if value is not None and close(value, expected, REL_TOL):
        return
    head = _head(got, expected, UNITS[name])
    second = None
    if value is not None and math.isfinite(value):
        probe = PROBES[name]
        try:
            second = (call_with(learner, name, probe).value, probe)
        except LearnerRaised:
            second = None
    raise Mismatch(f"{head} {why_wrong(name, (got.value, args), second)}")


# -- max_batch_for_itl: what a wrong count counts instead --------------------------------------------------------

#: A replica of small exact numbers (dyadic, so every way of writing the formula computes exactly): 256 bytes of
#: weights, 2 bytes per token, 16 tokens of context (32 bytes a sequence), 1024 bytes per second.
PANEL_REPLICA = (256, 2, 16, 1024)


def panel_target(fits: float) -> float:
    """The ITL target at which exactly ``fits`` sequences (a real number) fill a step of the panel replica."""
    weights, per_token, context, bandwidth = PANEL_REPLICA
    return (weights + fits * context * per_token) / bandwidth


#: How many sequences fit at each of the panel's targets: ties (whole numbers), fractions, none at all.
PANEL: tuple[float, ...] = (90, 21.25, 24.625, 7, 1, 0.75, 0.25, 0, -0.5, -2.5)

CountRule = Callable[[float, float, float, float, float], float]


def _q(W: float, k: float, C: float, t: float, bw: float) -> float:
    return (t * bw - W) / (C * k)


WRONG_COUNTS: tuple[tuple[str, CountRule], ...] = (
    ("It rounds up: the batch one larger than fits takes longer than the target. Round down (math.floor or //).",
     lambda W, k, C, t, bw: max(0, math.ceil(_q(W, k, C, t, bw)))),
    ("It is one too many: it returns the first batch that misses the target, not the last one that meets it.",
     lambda W, k, C, t, bw: max(0, math.floor(_q(W, k, C, t, bw))) + 1),
    ("It rounds to the nearest whole number: a batch that rounds up takes longer than the target. Round down.",
     lambda W, k, C, t, bw: max(0, round(_q(W, k, C, t, bw)))),
    ("It returns the number of sequences unrounded: a batch is a whole number of sequences. Round down.",
     lambda W, k, C, t, bw: max(0.0, _q(W, k, C, t, bw))),
    ("It leaves out a step exactly at the target (`<` where `<=` belongs): a step that takes exactly itl_target "
     "meets it.", lambda W, k, C, t, bw: max(0, math.ceil(_q(W, k, C, t, bw)) - 1)),
    ("It is one too few: the batch one larger still meets the target.",
     lambda W, k, C, t, bw: max(0, math.floor(_q(W, k, C, t, bw)) - 1)),
    ("It returns a negative batch when not even the weights fit in the target: no batch meets it then, so return "
     "0.", lambda W, k, C, t, bw: math.floor(_q(W, k, C, t, bw))),
    ("It returns a negative batch when not even the weights fit in the target (int() cuts toward zero): no batch "
     "meets it then, so return 0.", lambda W, k, C, t, bw: int(_q(W, k, C, t, bw))),
    ("It returns 1 when not even one sequence meets the target: then no batch does, so return 0.",
     lambda W, k, C, t, bw: max(1, math.floor(_q(W, k, C, t, bw)))),
    ("It leaves out the weights: every step reads them once before any cache, so take param_bytes away from what "
     "the target allows.", lambda W, k, C, t, bw: max(0, math.floor(t * bw / (C * k)))),
    ("It charges the weights to every sequence: the batch shares one read of the weights, so take them away once.",
     lambda W, k, C, t, bw: max(0, math.floor(t * bw / (W + C * k)))),
    ("It leaves out the context: each sequence's cache is context_len x kv_bytes_per_token bytes.",
     lambda W, k, C, t, bw: max(0, math.floor((t * bw - W) / k))),
    ("It counts K and V again (2 x kv_bytes_per_token): kv_bytes_per_token already counts both.",
     lambda W, k, C, t, bw: max(0, math.floor(_q(W, k, C, t, bw) / 2))),
)


def panel_answers(rule: CountRule) -> tuple[float, ...]:
    weights, per_token, context, bandwidth = PANEL_REPLICA
    return tuple(rule(weights, per_token, context, panel_target(fits), bandwidth) for fits in PANEL)


def wrong_count(learner: Any) -> str:
    """What the learner's max_batch_for_itl counts instead, from its answers on :data:`PANEL`, or ''. Run once
    per notebook, after a wrong count (its answer depends only on the learner's code)."""
    return str(learner.once("max_batch_for_itl: wrong count", lambda: _wrong_count(learner)))


def _wrong_count(learner: Any) -> str:
    weights, per_token, context, bandwidth = PANEL_REPLICA
    answers = []
    for fits in PANEL:
        try:
            value = learner.call("max_batch_for_itl", weights, per_token, context, panel_target(fits), bandwidth).value
        except LearnerRaised:
            return ""
        answers.append(number(value))
    if any(a is None for a in answers):
        return ""
    fits = [
        s
        for s, rule in WRONG_COUNTS
        if all(close(a, r, 1e-9) for a, r in zip(answers, panel_answers(rule), strict=True))
    ]
    return fits[0] if len(fits) == 1 else ""


def check_count(learner: Any, keywords: bool = False, **args: Any) -> None:
    """Call max_batch_for_itl on ``args``; a wrong count is explained from the panel, from what the value itself
    shows (None, negative, not whole), or said plainly to be one the grader cannot name."""
    name = "max_batch_for_itl"
    got = call_with(learner, name, args, keywords)
    expected = max_batch_for_itl(**args)
    value = number(got.value)
    if value is not None and value == expected:
        return
    head = _head(got, expected)
    if got.value is None:
        raise Mismatch(
            f"{head} It returned None"
            + (": where no batch meets the target, return 0 (a count), not None." if expected == 0 else
               ": did you forget the `return` statement?")
        )
    why = not_a_number(got.value)
    if why:
        raise Mismatch(f"{head} {why}")
    assert value is not None
    if not math.isfinite(value):
        raise Mismatch(f"{head} It is {value}: was there a division by zero or an overflow?")
    why = wrong_count(learner)
    if not why and value < 0:
        why = "A batch cannot be negative: when not even one sequence meets the target, return 0."
    if not why and value != math.floor(value):
        why = "It is not a whole number: a batch is a whole number of sequences. Round down (math.floor or //)."
    if not why:
        why = (
            "I can't tell which slip this is: take param_bytes away from itl_target x bandwidth, divide by one "
            "sequence's cache (context_len x kv_bytes_per_token), round down, and return 0 if that is below 1."
        )
    raise Mismatch(f"{head} {why}")


# -- value questions ---------------------------------------------------------------------------------------------

Known = Sequence[tuple[str, float]]


def expect_value(
    name: str, value: Any, expected: float, *, meaning: str, known: Known, rel: float, advice: str
) -> None:
    """Check a by-hand number; the feedback never states it. Only one number is evidence here, so a slip is named
    only when it is the one slip within 0.2% of the answer given (the slips of a question are far apart)."""
    got = number(value)
    if got is not None and math.isfinite(got) and close(got, expected, rel):
        return
    shown = withheld(f" (expected {expected:.6g})")
    text = f"`{name}` is {show(value)}, which is not right for {meaning}" + shown + "."
    why = not_a_number(value)
    if not why and got is not None:
        fits = [s for s, wrong in known if close(got, wrong, 2e-3)]
        if len(fits) == 1:
            why = f"That is {fits[0]}."
        else:
            slip = unit_slip(got, expected, rel=2e-3)
            why = (slip.sentence if slip else "") or reciprocal(got, expected, 2e-3) or near_miss(got, expected, rel)
    why = why or "I can't tell which slip gives this number."
    raise Mismatch(f"{text} {why} {advice}")


def expect_choice(name: str, value: Any, correct: Any, hint: str) -> None:
    """A multiple-choice answer: one letter, compared case-insensitively; the learner is never told the letter."""
    if not isinstance(correct, str) or not correct.strip():
        raise RuntimeError(f"the solution notebook gives no letter for {name!r} (got {correct!r})")
    letters = "A, B, C or D"
    right = withheld(f" (The right letter is {correct.strip().upper()}.)")
    if not isinstance(value, str):
        raise Mismatch(f"`{name}` is {show(value)}; expected one of the letters {letters}, as a string." + right)
    answer = value.strip().upper()
    if answer == correct.strip().upper():
        return
    if len(answer) != 1 or answer not in "ABCD":
        raise Mismatch(
            f"`{name}` is {show(value)}, which is not one of {letters}: give just the letter of one option, as a "
            "string." + right
        )
    raise Mismatch(f"`{name}` is {show(value)}: {answer!r} is not the right option.{right} {hint}")


@pytest.fixture(scope="session")
def batching() -> SimpleNamespace:
    """The lesson's spec formulas and checks, for the test modules."""
    return SimpleNamespace(
        spec=SPEC,
        check_number=check_number,
        check_count=check_count,
        batches_that_fit=batches_that_fit,
        panel_target=panel_target,
        PANEL_REPLICA=PANEL_REPLICA,
        expect_value=expect_value,
        expect_choice=expect_choice,
    )
