"""Shared helpers for the hidden suites of the "Prefill vs decode on one accelerator" lesson.

Test modules are imported with ``--import-mode=importlib``, so they reach these helpers through the ``roof``
fixture. Everything here runs in the trusted process: expected values come from the lesson's spec, never from
the learner's code.

How a wrong number is explained (issue 20: name a slip only where the evidence supports it). Each function has
a **panel**: two or three fixed inputs on which every slip the lesson knows gives a different row of values
(``tests/test_lesson_roofline.py`` checks that), chosen on both sides of the ridge point, since a roofline slip
(max for min, a sum for a max) shows on one side only. When a check finds a wrong number, the learner's function
is run on the panel, once per notebook (``learner.once``: the answers depend only on the code), and a slip is
named only when it gives the learner's result on the failing input and on every panel input. A generic slip of
:mod:`grader.diagnose` (a unit factor, a reciprocal, rounding) is named only when every panel answer shows it
too. The same number everywhere is a hard-coded answer; anything else is said plainly to be a slip the grader
cannot tell.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from grader.checks import NOT_SURE, call_text, float_count, lesson_fixture, not_right
from grader.checks import call_with as call_with_params
from grader.diagnose import candidates, number, structural_slip
from grader.testing import REL_TOL, Call, LearnerRaised, Mismatch, close, show

# -- the spec, computed independently of any notebook ----------------------------------------------------------


def attainable_flops(intensity: float, peak_flops: float, bandwidth: float) -> float:
    return min(peak_flops, intensity * bandwidth)


def step_seconds(flops: float, bytes_moved: float, peak_flops: float, bandwidth: float) -> float:
    return max(flops / peak_flops, bytes_moved / bandwidth)


def decode_intensity(batch: int, bytes_per_param: float) -> float:
    return 2 * batch / bytes_per_param


def crossover_batch(peak_flops: float, bandwidth: float, bytes_per_param: float) -> float:
    return peak_flops / bandwidth * bytes_per_param / 2


def forward_seconds(
    n_params: float, bytes_per_param: float, n_tokens: int, peak_flops: float, bandwidth: float
) -> float:
    return step_seconds(2 * n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)


def itl_during_prefill(
    n_params: float,
    bytes_per_param: float,
    batch: int,
    prefill_tokens: int,
    chunk_tokens: int,
    peak_flops: float,
    bandwidth: float,
) -> float:
    tokens = batch + min(chunk_tokens, prefill_tokens)
    return forward_seconds(n_params, bytes_per_param, tokens, peak_flops, bandwidth)


def prefill_iterations(prefill_tokens: int, chunk_tokens: int) -> int:
    return -(-prefill_tokens // chunk_tokens)


SPEC: dict[str, Callable[..., Any]] = {
    "attainable_flops": attainable_flops,
    "step_seconds": step_seconds,
    "decode_intensity": decode_intensity,
    "crossover_batch": crossover_batch,
    "forward_seconds": forward_seconds,
    "itl_during_prefill": itl_during_prefill,
    "prefill_iterations": prefill_iterations,
}

#: The parameter names the notebook gives each function, in order.
PARAMS: dict[str, tuple[str, ...]] = {
    "attainable_flops": ("intensity", "peak_flops", "bandwidth"),
    "step_seconds": ("flops", "bytes_moved", "peak_flops", "bandwidth"),
    "decode_intensity": ("batch", "bytes_per_param"),
    "crossover_batch": ("peak_flops", "bandwidth", "bytes_per_param"),
    "forward_seconds": ("n_params", "bytes_per_param", "n_tokens", "peak_flops", "bandwidth"),
    "itl_during_prefill": (
        "n_params", "bytes_per_param", "batch", "prefill_tokens", "chunk_tokens", "peak_flops", "bandwidth",
    ),
    "prefill_iterations": ("prefill_tokens", "chunk_tokens"),
}

UNITS = {
    "attainable_flops": "FLOP/s",
    "step_seconds": "s",
    "decode_intensity": "FLOPs per byte",
    "crossover_batch": "sequences",
    "forward_seconds": "s",
    "itl_during_prefill": "s",
    "prefill_iterations": "iterations",
}

# -- the lesson's own slips: (what the learner did, in their words; the value it gives) ------------------------

SlipRule = tuple[str, Callable[..., float]]


def _pass(flops: float, weights: float, peak: float, bandwidth: float) -> float:
    return max(flops / peak, weights / bandwidth)


def _itl(rule: Callable[..., float]) -> Callable[..., float]:
    """A slip of itl_during_prefill, written on the forward pass of a number of tokens (``fw``)."""

    def value(n_params: float, bytes_per_param: float, batch: int, prefill_tokens: int, chunk_tokens: int,
              peak_flops: float, bandwidth: float) -> float:
        def fw(n: float) -> float:
            return forward_seconds(n_params, bytes_per_param, int(n), peak_flops, bandwidth)

        return rule(fw, batch, prefill_tokens, chunk_tokens)

    return value


SLIPS: dict[str, tuple[SlipRule, ...]] = {
    "attainable_flops": (
        ("the larger of the two limits (max): the slower limit caps the rate, so take the smaller, min",
         lambda intensity, peak_flops, bandwidth: max(peak_flops, intensity * bandwidth)),
        ("intensity * bandwidth alone, with no roof: no work runs faster than peak_flops, so take the min of both",
         lambda intensity, peak_flops, bandwidth: intensity * bandwidth),
        ("peak_flops alone: below the ridge point memory feeds only intensity * bandwidth FLOP/s, so take the min "
         "of both", lambda intensity, peak_flops, bandwidth: peak_flops),
        ("intensity divided by the bandwidth: FLOPs per byte times bytes per second gives FLOP/s, a product",
         lambda intensity, peak_flops, bandwidth: min(peak_flops, intensity / bandwidth)),
        ("bandwidth / intensity, bytes per FLOP: the memory limit is intensity * bandwidth",
         lambda intensity, peak_flops, bandwidth: min(peak_flops, bandwidth / intensity)),
        ("the peak halved: peak_flops is already the dense peak, so use it as it is",
         lambda intensity, peak_flops, bandwidth: min(peak_flops / 2, intensity * bandwidth)),
        ("the intensity alone compared with peak_flops, without the bandwidth: memory feeds intensity * bandwidth "
         "FLOP/s (FLOPs per byte times bytes per second)",
         lambda intensity, peak_flops, bandwidth: min(peak_flops, intensity)),
    ),
    "step_seconds": (
        ("the sum of the two times: with perfect overlap the slower of the two sets the time, so take the max",
         lambda flops, bytes_moved, peak_flops, bandwidth: flops / peak_flops + bytes_moved / bandwidth),
        ("the smaller of the two times (min): the step cannot end before its slower part, so take the max",
         lambda flops, bytes_moved, peak_flops, bandwidth: min(flops / peak_flops, bytes_moved / bandwidth)),
        ("the arithmetic time alone: a step that moves many bytes waits for memory, so take the max of both",
         lambda flops, bytes_moved, peak_flops, bandwidth: flops / peak_flops),
        ("the memory time alone: a step with many FLOPs waits for the arithmetic, so take the max of both",
         lambda flops, bytes_moved, peak_flops, bandwidth: bytes_moved / bandwidth),
    ),
    "decode_intensity": (
        ("1 FLOP per parameter per sequence (batch / bytes_per_param): a weight costs a multiply and an add, 2",
         lambda batch, bytes_per_param: batch / bytes_per_param),
        ("one sequence's intensity (2 / bytes_per_param): each weight read serves every sequence of the batch",
         lambda batch, bytes_per_param: 2 / bytes_per_param),
        ("multiplying by the bytes per parameter: the bytes read are in the denominator, FLOPs per byte",
         lambda batch, bytes_per_param: 2 * batch * bytes_per_param),
        ("the bytes counted as bits (8 * bytes_per_param): bytes_per_param is already in bytes",
         lambda batch, bytes_per_param: 2 * batch / (8 * bytes_per_param)),
        ("bytes per FLOP: the formula is upside down",
         lambda batch, bytes_per_param: bytes_per_param / (2 * batch)),
        ("the bytes per parameter left out (2 * batch): divide by them",
         lambda batch, bytes_per_param: 2 * batch),
        ("`//`, which rounds down to a whole number of FLOPs per byte: use `/`",
         lambda batch, bytes_per_param: 2 * batch // bytes_per_param),
    ),
    "crossover_batch": (
        ("the ridge point itself: decode's intensity is 2 * batch / bytes_per_param, so the batch is the ridge "
         "x bytes_per_param / 2", lambda peak_flops, bandwidth, bytes_per_param: peak_flops / bandwidth),
        ("the ridge x 2 / bytes_per_param, the equation solved upside down: 2 * batch / b = ridge gives "
         "batch = ridge x b / 2",
         lambda peak_flops, bandwidth, bytes_per_param: peak_flops / bandwidth * 2 / bytes_per_param),
        ("the ridge x bytes_per_param without the / 2: decode does 2 FLOPs per parameter per sequence, so "
         "2 * batch / b = ridge gives batch = ridge x b / 2",
         lambda peak_flops, bandwidth, bytes_per_param: peak_flops / bandwidth * bytes_per_param),
        ("the ridge / 2 with the bytes per parameter left out: multiply by bytes_per_param too",
         lambda peak_flops, bandwidth, bytes_per_param: peak_flops / bandwidth / 2),
        ("the peak halved: peak_flops is already the dense peak, so use it as it is",
         lambda peak_flops, bandwidth, bytes_per_param: peak_flops / bandwidth * bytes_per_param / 4),
        ("bandwidth / peak_flops, the ridge point upside down: the ridge is FLOP/s over bytes per second",
         lambda peak_flops, bandwidth, bytes_per_param: bandwidth / peak_flops * bytes_per_param / 2),
        ("rounded down to a whole batch (int() or `//`): return the float itself",
         lambda peak_flops, bandwidth, bytes_per_param: math.floor(peak_flops / bandwidth * bytes_per_param / 2)),
    ),
    "forward_seconds": (
        ("the weights read once per token (n_params * bytes_per_param * n_tokens bytes): a pass reads each "
         "weight once for all its tokens",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         _pass(2 * n_params * n_tokens, n_params * bytes_per_param * n_tokens, peak_flops, bandwidth)),
        ("1 FLOP per parameter per token: a weight costs a multiply and an add, 2 FLOPs",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         _pass(n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)),
        ("one token's FLOPs (2 * n_params): every one of the n_tokens tokens costs that much",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         _pass(2 * n_params, n_params * bytes_per_param, peak_flops, bandwidth)),
        ("the bytes per parameter left out of the bytes (n_params bytes): the weights are n_params * "
         "bytes_per_param bytes",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         _pass(2 * n_params * n_tokens, n_params, peak_flops, bandwidth)),
        ("the two times added: call step_seconds, which takes the larger",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         2 * n_params * n_tokens / peak_flops + n_params * bytes_per_param / bandwidth),
        ("6 FLOPs per parameter per token, the training rule (forward and backward): a pass is forward only, 2",
         lambda n_params, bytes_per_param, n_tokens, peak_flops, bandwidth:
         _pass(6 * n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)),
    ),
    "itl_during_prefill": (
        ("a full chunk even when the prompt is shorter than one: the pass carries min(chunk_tokens, "
         "prefill_tokens) prompt tokens", _itl(lambda fw, b, p, c: fw(b + c))),
        ("the decode tokens left out: the batch's tokens share the chunk's pass, batch + the chunk's tokens",
         _itl(lambda fw, b, p, c: fw(min(c, p)))),
        ("the whole prompt in every pass, whatever the chunk size: each pass carries one chunk",
         _itl(lambda fw, b, p, c: fw(b + p))),
        ("the decode step and the chunk timed as two passes: they run in one pass, which reads the weights once",
         _itl(lambda fw, b, p, c: fw(b) + fw(min(c, p)))),
        ("an ordinary decode step: while the prompt is prefilled each pass also carries a chunk of it",
         _itl(lambda fw, b, p, c: fw(b))),
        ("max(chunk_tokens, prefill_tokens) where min belongs: the pass carries one chunk, or the whole prompt "
         "when it is shorter than a chunk", _itl(lambda fw, b, p, c: fw(b + max(c, p)))),
    ),
    "prefill_iterations": (
        ("rounded down (`//` or int()): a last, partly full chunk still takes an iteration, so round up",
         lambda prefill_tokens, chunk_tokens: prefill_tokens // chunk_tokens),
        ("not rounded (`/`): a count of iterations is a whole number, rounded up",
         lambda prefill_tokens, chunk_tokens: prefill_tokens / chunk_tokens),
        ("one too many when the chunks divide the prompt exactly (`// + 1`): round up instead",
         lambda prefill_tokens, chunk_tokens: prefill_tokens // chunk_tokens + 1),
        ("rounded to the nearest (round()): a last chunk of a few tokens still takes an iteration, so round up",
         lambda prefill_tokens, chunk_tokens: round(prefill_tokens / chunk_tokens)),
    ),
}


def _args(name: str, *values: Any) -> dict[str, Any]:
    return dict(zip(PARAMS[name], values, strict=True))


#: For each function, inputs on which every slip (and the right answer) gives a different row of values, on
#: both sides of the ridge point where the function has one (ridge 7.3e14 / 1.7e12 = 429.4 FLOPs per byte).
PANELS: dict[str, tuple[dict[str, Any], ...]] = {
    "attainable_flops": (
        _args("attainable_flops", 37, 7.3e14, 1.7e12),
        _args("attainable_flops", 3100, 7.3e14, 1.7e12),
        _args("attainable_flops", 0.7, 2.9e15, 3.1e12),
    ),
    "step_seconds": (
        _args("step_seconds", 3.1e13, 2.2e10, 7.3e14, 1.7e12),
        _args("step_seconds", 4.4e11, 5.5e10, 7.3e14, 1.7e12),
    ),
    "decode_intensity": (_args("decode_intensity", 37, 4), _args("decode_intensity", 3, 0.5)),
    "crossover_batch": (
        _args("crossover_batch", 7.3e14, 1.7e12, 4),
        _args("crossover_batch", 2.9e15, 3.1e12, 0.5),
    ),
    "forward_seconds": (
        _args("forward_seconds", 3.1e9, 0.5, 37, 7.3e14, 1.7e12),
        _args("forward_seconds", 3.1e9, 2, 3001, 7.3e14, 1.7e12),
    ),
    "itl_during_prefill": (
        _args("itl_during_prefill", 3.1e9, 1, 41, 3001, 700, 7.3e14, 1.7e12),
        _args("itl_during_prefill", 3.1e9, 1, 41, 300, 700, 7.3e14, 1.7e12),
        _args("itl_during_prefill", 3.1e9, 2, 9, 5000, 64, 7.3e14, 1.7e12),
    ),
    "prefill_iterations": (
        _args("prefill_iterations", 4000, 512),
        _args("prefill_iterations", 4096, 512),
        _args("prefill_iterations", 4200, 512),
        _args("prefill_iterations", 100, 1000),
    ),
}

#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "attainable_flops": (_args("attainable_flops", 2, 3.958e15, 9.6e12),),
    "step_seconds": (_args("step_seconds", 4.48e12, 70e9, 3.958e15, 9.6e12),),
    "decode_intensity": (_args("decode_intensity", 32, 1),),
    "crossover_batch": (_args("crossover_batch", 3.958e15, 9.6e12, 1),),
    "forward_seconds": (_args("forward_seconds", 70e9, 1, 4000, 3.958e15, 9.6e12),),
    "itl_during_prefill": (_args("itl_during_prefill", 70e9, 1, 32, 4000, 512, 3.958e15, 9.6e12),),
    "prefill_iterations": (_args("prefill_iterations", 4000, 512),),
}

#: A count's quotient before it is rounded.
UNROUNDED: dict[str, Callable[..., float]] = {
    "prefill_iterations": lambda prefill_tokens, chunk_tokens: prefill_tokens / chunk_tokens,
}

#: What to check when no known slip fits (said with "I can't tell which slip this is").
ADVICE = {
    "attainable_flops": "Check the formula: the smaller of peak_flops and intensity * bandwidth.",
    "step_seconds": "Check the formula: the larger of flops / peak_flops and bytes_moved / bandwidth.",
    "decode_intensity": "Check the formula: 2 FLOPs per parameter for each sequence, over bytes_per_param bytes.",
    "crossover_batch": "Check the formula: solve 2 * batch / bytes_per_param = peak_flops / bandwidth for batch.",
    "forward_seconds": "Check the formula: step_seconds of 2 * n_params * n_tokens FLOPs and n_params * "
    "bytes_per_param bytes.",
    "itl_during_prefill": "Check the formula: one forward pass of batch + min(chunk_tokens, prefill_tokens) tokens.",
    "prefill_iterations": "Check the formula: prefill_tokens / chunk_tokens, rounded up to a whole number.",
}


def _call_text(name: str, args: dict[str, Any]) -> str:
    return call_text(name, PARAMS[name], args)


def _known(name: str, args: dict[str, Any]) -> list[tuple[str, float]]:
    return [(sentence, float(rule(**args))) for sentence, rule in SLIPS[name]]


def _fits(name: str, key: str, value: Any, args: dict[str, Any]) -> bool:
    """Whether the slip ``key`` (a candidate's key) gives ``value`` on ``args``."""
    got = number(value)
    if got is None:
        return False
    if key.startswith("known:"):
        sentence = key.removeprefix("known:")
        rule = next(r for s, r in SLIPS[name] if s == sentence)
        return close(got, float(rule(**args)), 1e-9)
    return key in {c.key for c in candidates(value, SPEC[name](**args), unit=UNITS[name], known=_known(name, args))}


def panel_answers(learner: Any, name: str) -> list[Any] | None:
    """The learner's answers on the function's panel, once per notebook; None where a call raised."""

    def compute() -> list[Any]:
        answers = []
        for args in PANELS[name]:
            try:
                answers.append(call_with(learner, name, args).value)
            except LearnerRaised:
                answers.append(None)
        return answers

    return list(learner.once(f"{name}: panel", compute))


def why_wrong(learner: Any, name: str, value: Any, args: dict[str, Any]) -> str:
    """Why ``value`` (the learner's ``name`` on ``args``) is wrong: a slip named only when the panel shows it."""
    expected = SPEC[name](**args)
    first = candidates(value, expected, unit=UNITS[name], known=_known(name, args))
    if first and first[0].key.startswith(("type:", "not finite")):
        return first[0].sentence
    if number(value) is None:
        return f"{NOT_SURE} this is: it returned {show(value)}. {ADVICE[name]}"
    panel = panel_answers(learner, name) or []
    rows = list(zip(PANELS[name], panel, strict=False))  # [] when the panel could not run
    if all(a is not None and type(a) is type(value) and a == value for _, a in rows) and not all(
        close(SPEC[name](**p), expected, 1e-9) for p, _ in rows
    ):
        shown = _call_text(name, rows[0][0])
        return (
            f"{shown} returned {show(value)} too: it gives the same answer whatever the inputs. Is it hard-coded, "
            "or copied from the worked example? Compute it from the arguments."
        )
    for candidate in first:
        if all(answer is not None and _fits(name, candidate.key, answer, p) for p, answer in rows):
            return f"That is {candidate.sentence}." if candidate.key.startswith("known:") else candidate.sentence
    shape = structural_slip(SPEC[name], PARAMS[name], [(args, value), *rows], PAGE.get(name, ()), UNROUNDED.get(name))
    if shape:
        return shape
    return f"{NOT_SURE} this is: it matches none of the usual ones on other inputs too. {ADVICE[name]}"


def call_with(learner: Any, name: str, args: dict[str, Any], keywords: bool = False) -> Call:
    """:func:`grader.checks.call_with` with ``name``'s parameters."""
    return call_with_params(learner, name, PARAMS[name], args, keywords)


def check_number(learner: Any, name: str, keywords: bool = False, **args: Any) -> None:
    """Call the learner's numeric function ``name`` on ``args`` and compare with the spec; explain a wrong
    number from the panel."""
    got = call_with(learner, name, args, keywords)
    expected = SPEC[name](**args)
    value = number(got.value)
    if value is not None and close(value, expected, REL_TOL):
        return
    raise Mismatch(f"{not_right(got, expected, UNITS[name])} {why_wrong(learner, name, got.value, args)}")


def check_count(learner: Any, keywords: bool = False, **args: Any) -> None:
    """prefill_iterations: the right whole number, as an int."""
    name = "prefill_iterations"
    got = call_with(learner, name, args, keywords)
    expected = SPEC[name](**args)
    value = got.value
    if isinstance(value, int) and not isinstance(value, bool) and value == expected:
        return
    if isinstance(value, float) and value == expected:
        raise Mismatch(float_count(got, "math.ceil returns one; so does -(-a // b) on ints"))
    raise Mismatch(f"{not_right(got, expected, UNITS[name])} {why_wrong(learner, name, value, args)}")


roof = lesson_fixture("roof", spec=SPEC, check_number=check_number, check_count=check_count)
