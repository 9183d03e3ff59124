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
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from grader.checks import (
    lesson_fixture,
    HARD_CODED,
    Numbers,
    float_count,
    hard_coded,
    not_right,
    only_fit,
    panel_answers,
    panel_slip,
)
from grader.diagnose import not_a_number, number
from grader.testing import Call, LearnerRaised, Mismatch, close, show

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


#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "batch_step_seconds": (dict(zip(STEP, (70e9, 327680, 4000, 64, 9.6e12), strict=True)),),
    "fleet_tokens_per_s": (dict(zip(STEP, (70e9, 327680, 4000, 64, 9.6e12), strict=True)),),
    "max_batch_for_itl": (dict(zip(PARAMS["max_batch_for_itl"], (70e9, 327680, 4000, 0.020, 9.6e12), strict=True)),),
    "in_flight": ({"arrival_rate": 8, "latency": 10.48},),
}

NUMBERS = Numbers(
    spec=SPEC,
    params=PARAMS,
    units=UNITS,
    slips=SLIPS,
    probes={n: (p,) for n, p in PROBES.items()},
    advice=ADVICE,
    rounding=True,
    page=PAGE,
)
check_number = NUMBERS.check


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
    ("It is one too many: a loop that stops at the first batch that misses the target returns that batch, not the "
     "last one that meets it (the one before).",
     lambda W, k, C, t, bw: math.floor(_q(W, k, C, t, bw)) + 1 if _q(W, k, C, t, bw) >= 0 else 0),
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


def count_answers(rule: CountRule) -> tuple[float, ...]:
    weights, per_token, context, bandwidth = PANEL_REPLICA
    return tuple(rule(weights, per_token, context, panel_target(fits), bandwidth) for fits in PANEL)


def wrong_count(learner: Any) -> str:
    """What the learner's max_batch_for_itl counts instead, from its answers on :data:`PANEL`, or ''. Run once
    per notebook, after a wrong count (its answer depends only on the learner's code)."""
    weights, per_token, context, bandwidth = PANEL_REPLICA
    calls = [(weights, per_token, context, panel_target(fits), bandwidth) for fits in PANEL]
    answers = panel_answers(learner, "max_batch_for_itl", calls)
    if answers is None or any(number(a) is None for a in answers):
        return ""
    rows = [(sentence, count_answers(rule)) for sentence, rule in WRONG_COUNTS]
    return only_fit([number(a) for a in answers], rows, lambda a, r: close(a, r, 1e-9))


#: Inputs a right count is checked again on, so a constant (0 everywhere, the worked example's 93) earns nothing:
#: 21 and 7 sequences of the panel replica.
SECOND: tuple[dict[str, Any], ...] = tuple(
    dict(zip(PARAMS["max_batch_for_itl"], (*PANEL_REPLICA[:3], panel_target(fits), PANEL_REPLICA[3]), strict=True))
    for fits in (21.25, 7)
)


def _on_page(learner: Any) -> Any:
    """The learner's max_batch_for_itl on the worked example, once per notebook; None if the call raised."""

    def compute() -> Any:
        try:
            return NUMBERS.call(learner, "max_batch_for_itl", PAGE["max_batch_for_itl"][0]).value
        except LearnerRaised:
            return None

    return learner.once("max_batch_for_itl: the page", compute)


def _constant_count(learner: Any, got: Call) -> str:
    """The hard-coded sentence when every panel answer is the learner's wrong count itself, and so is the answer on
    the worked example's replica, else ''. The panel's replica is tiny: a count that reads a page value for an
    argument (the 20 ms target) is 0 all over it, and only the page's replica shows it moves."""
    weights, per_token, context, bandwidth = PANEL_REPLICA
    calls = [(weights, per_token, context, panel_target(fits), bandwidth) for fits in PANEL]
    answers = panel_answers(learner, "max_batch_for_itl", calls)
    if not answers or not all(type(a) is type(got.value) and a == got.value for a in answers):
        return ""
    page = _on_page(learner)
    if page is not None and not (type(page) is type(got.value) and page == got.value):
        return ""
    shown = NUMBERS.call_text("max_batch_for_itl", dict(zip(PARAMS["max_batch_for_itl"], calls[0], strict=True)))
    return f"{shown} returned {show(got.value)} too, as did every other input tried: {HARD_CODED}"


def _structural_count(learner: Any, args: dict[str, Any], value: Any) -> str:
    """A structural slip (:func:`grader.diagnose.structural`) that gives the learner's count here, on the worked
    example and on every case of :data:`PANEL`, or ''."""
    weights, per_token, context, bandwidth = PANEL_REPLICA
    calls = [(weights, per_token, context, panel_target(fits), bandwidth) for fits in PANEL]
    name = "max_batch_for_itl"
    page = _on_page(learner)
    first = [(args, value)] + ([(PAGE[name][0], page)] if page is not None else [])
    return panel_slip(learner, name, max_batch_for_itl, PARAMS[name], calls, first, PAGE[name])


def check_count(learner: Any, keywords: bool = False, **args: Any) -> None:
    """Call max_batch_for_itl on ``args``; a wrong count is explained from the panel, from what the value itself
    shows (None, negative, not whole), or said plainly to be one the grader cannot name."""
    name = "max_batch_for_itl"
    got = NUMBERS.call(learner, name, args, keywords)
    expected = max_batch_for_itl(**args)
    value = number(got.value)
    if value is not None and value == expected:
        if isinstance(got.value, float):
            raise Mismatch(float_count(got))
        constant = hard_coded(learner, name, PARAMS[name], got, SECOND, lambda o: max_batch_for_itl(**o) != expected)
        if constant:
            raise Mismatch(constant)
        return
    head = not_right(got, expected)
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
    why = wrong_count(learner) or _constant_count(learner, got) or _structural_count(learner, args, got.value)
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


batching = lesson_fixture(
    "batching",
    spec=SPEC, check_number=check_number, check_count=check_count, batches_that_fit=batches_that_fit,
    panel_target=panel_target, PANEL_REPLICA=PANEL_REPLICA,
)
