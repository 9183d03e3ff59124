"""Shared helpers for the hidden suites of the "Prefill: the whole prompt in one pass" lesson.

Test modules are imported with ``--import-mode=importlib``, so they reach these helpers through the ``prefill``
fixture. Everything here runs in the trusted process: expected values come from the lesson's spec, never from
the learner's code.

How a wrong number is explained (issue 20: name a slip only where the evidence supports it). A function that
returns a wrong number is called once more, on its **probe**: fixed inputs on which every slip the lesson knows
gives a different value (``tests/test_lesson_prefill.py`` checks that). A slip is named only when it explains
both results; a generic slip (a unit factor, a reciprocal) only when it is the same on both; the same number
twice is a hard-coded answer; anything else is said plainly to be a slip the grader cannot tell.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.checks import Carried, Numbers, Use, lesson_fixture, not_right, only_fit, panel_answers, panel_slip
from grader.diagnose import explain, number
from grader.testing import Mismatch, show

# -- the spec, computed independently of any notebook ----------------------------------------------------------


def prefill_flops(n_params: float, prompt_len: int) -> float:
    return 2 * n_params * prompt_len


def prefill_intensity(prompt_len: int, bytes_per_param: float) -> float:
    return 2 * prompt_len / bytes_per_param


def ridge_point(peak_flops: float, bandwidth: float) -> float:
    return peak_flops / bandwidth


def is_compute_bound(prompt_len: int, bytes_per_param: float, peak_flops: float, bandwidth: float) -> bool:
    return prefill_intensity(prompt_len, bytes_per_param) > ridge_point(peak_flops, bandwidth)


def ttft_seconds(n_params: float, prompt_len: int, peak_flops: float, utilisation: float) -> float:
    return prefill_flops(n_params, prompt_len) / (peak_flops * utilisation)


def kv_bytes_written(prompt_len: int, n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_value: float) -> float:
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len


SPEC: dict[str, Callable[..., Any]] = {
    "prefill_flops": prefill_flops,
    "prefill_intensity": prefill_intensity,
    "ridge_point": ridge_point,
    "is_compute_bound": is_compute_bound,
    "ttft_seconds": ttft_seconds,
    "kv_bytes_written": kv_bytes_written,
}

#: The parameter names the notebook gives each function, in order.
PARAMS: dict[str, tuple[str, ...]] = {
    "prefill_flops": ("n_params", "prompt_len"),
    "prefill_intensity": ("prompt_len", "bytes_per_param"),
    "ridge_point": ("peak_flops", "bandwidth"),
    "is_compute_bound": ("prompt_len", "bytes_per_param", "peak_flops", "bandwidth"),
    "ttft_seconds": ("n_params", "prompt_len", "peak_flops", "utilisation"),
    "kv_bytes_written": ("prompt_len", "n_layers", "n_kv_heads", "head_dim", "bytes_per_value"),
}

UNITS = {
    "prefill_flops": "FLOPs",
    "prefill_intensity": "FLOPs per byte",
    "ridge_point": "FLOPs per byte",
    "ttft_seconds": "s",
    "kv_bytes_written": "bytes",
}

# -- the lesson's own slips: (what the learner did, in their words; the value it gives) ------------------------

SlipRule = tuple[str, Callable[..., float]]

SPARSE = "peak_flops is already the dense peak: halve only a datasheet figure marked with sparsity"

SLIPS: dict[str, tuple[SlipRule, ...]] = {
    "prefill_flops": (
        ("1 FLOP per parameter per token (n_params * prompt_len): a weight costs a multiply and an add, 2 FLOPs",
         lambda n_params, prompt_len: n_params * prompt_len),
        ("the FLOPs of one token (2 * n_params): every one of the prompt_len tokens costs that much",
         lambda n_params, prompt_len: 2 * n_params),
        ("6 FLOPs per parameter per token, the training rule (forward and backward): prefill is a forward pass, 2",
         lambda n_params, prompt_len: 6 * n_params * prompt_len),
        ("one token too many (prompt_len + 1): the first output token comes from decode, not from the prompt",
         lambda n_params, prompt_len: 2 * n_params * (prompt_len + 1)),
        ("the FLOPs in TFLOP (divided by 1e12): return the FLOPs themselves",
         lambda n_params, prompt_len: 2 * n_params * prompt_len / 1e12),
    ),
    "prefill_intensity": (
        ("1 FLOP per parameter per token (prompt_len / bytes_per_param): a weight costs 2 FLOPs, a multiply and an add",
         lambda prompt_len, bytes_per_param: prompt_len / bytes_per_param),
        ("the intensity of one token, a decode step (2 / bytes_per_param): prefill uses each weight it reads for "
         "all prompt_len tokens, so the intensity grows with the prompt",
         lambda prompt_len, bytes_per_param: 2 / bytes_per_param),
        ("multiplying by the bytes per parameter: the bytes read are in the denominator, FLOPs per byte",
         lambda prompt_len, bytes_per_param: 2 * prompt_len * bytes_per_param),
        ("the bytes counted as bits (8 * bytes_per_param): bytes_per_param is already in bytes",
         lambda prompt_len, bytes_per_param: 2 * prompt_len / (8 * bytes_per_param)),
        ("bytes per FLOP: the formula is upside down",
         lambda prompt_len, bytes_per_param: bytes_per_param / (2 * prompt_len)),
        ("the bytes per parameter left out (2 * prompt_len): divide by them",
         lambda prompt_len, bytes_per_param: 2 * prompt_len),
        ("`//`, which rounds down to a whole number of FLOPs per byte: use `/`",
         lambda prompt_len, bytes_per_param: 2 * prompt_len // bytes_per_param),
    ),
    "ridge_point": (
        ("bytes per FLOP (bandwidth / peak_flops): the formula is upside down",
         lambda peak_flops, bandwidth: bandwidth / peak_flops),
        (f"the peak halved: {SPARSE}", lambda peak_flops, bandwidth: peak_flops / 2 / bandwidth),
        (f"the peak doubled: {SPARSE}, never double it", lambda peak_flops, bandwidth: 2 * peak_flops / bandwidth),
        ("peak_flops * bandwidth: FLOPs per byte is a division", lambda peak_flops, bandwidth: peak_flops * bandwidth),
        ("the bandwidth counted in bits (8 * bandwidth): it is in bytes per second",
         lambda peak_flops, bandwidth: peak_flops / (8 * bandwidth)),
    ),
    "ttft_seconds": (
        ("1 FLOP per parameter per token: a weight costs 2 FLOPs per token; call prefill_flops",
         lambda n_params, prompt_len, peak_flops, utilisation: n_params * prompt_len / (peak_flops * utilisation)),
        (f"the peak halved: {SPARSE}",
         lambda n_params, prompt_len, peak_flops, utilisation: 4 * n_params * prompt_len / (peak_flops * utilisation)),
        ("the utilisation left out: the pass achieves only peak_flops * utilisation FLOP/s, so divide by both",
         lambda n_params, prompt_len, peak_flops, utilisation: 2 * n_params * prompt_len / peak_flops),
        ("multiplying by the utilisation: a pass that achieves less of the peak takes longer, so divide by it",
         lambda n_params, prompt_len, peak_flops, utilisation: 2 * n_params * prompt_len / peak_flops * utilisation),
        ("the utilisation read as a percentage (divided by 100): it is a fraction, 0.28 for 28%",
         lambda n_params, prompt_len, peak_flops, utilisation: 2 * n_params * prompt_len / (peak_flops * utilisation / 100)),
        ("the time in milliseconds (x 1000): return seconds",
         lambda n_params, prompt_len, peak_flops, utilisation: 2e3 * n_params * prompt_len / (peak_flops * utilisation)),
        ("one token's FLOPs: the pass processes all prompt_len tokens",
         lambda n_params, prompt_len, peak_flops, utilisation: 2 * n_params / (peak_flops * utilisation)),
    ),
    "kv_bytes_written": (
        ("K or V only: every layer stores a key and a value vector, the factor 2",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len),
        ("the layers left out: each of the n_layers layers stores its own keys and values",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         2 * n_kv_heads * head_dim * bytes_per_value * prompt_len),
        ("one position only: prefill writes the cache for all prompt_len positions",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         2 * n_layers * n_kv_heads * head_dim * bytes_per_value),
        ("the KV heads left out: each KV head stores its own key and value",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         2 * n_layers * head_dim * bytes_per_value * prompt_len),
        ("bits, not bytes (x 8): bytes_per_value is already in bytes",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         16 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len),
        ("2 bytes per value written in, whatever bytes_per_value says: use the argument",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         4 * n_layers * n_kv_heads * head_dim * prompt_len),
        ("GiB (divided by 2**30): return bytes",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len / 2**30),
        ("GB (divided by 1e9): return bytes",
         lambda prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value:
         2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len / 1e9),
    ),
}

#: For each numeric function, inputs on which all its slips (and the right answer) differ from one another.
PROBES: dict[str, dict[str, Any]] = {
    "prefill_flops": {"n_params": 3.1e9, "prompt_len": 1531},
    "prefill_intensity": {"prompt_len": 1531, "bytes_per_param": 4},
    "ridge_point": {"peak_flops": 7.3e14, "bandwidth": 1.7e12},
    "ttft_seconds": {"n_params": 3.1e9, "prompt_len": 1531, "peak_flops": 7.3e14, "utilisation": 0.37},
    "kv_bytes_written": {"prompt_len": 1531, "n_layers": 37, "n_kv_heads": 5, "head_dim": 96, "bytes_per_value": 1},
}

#: What to check when no known slip fits (said with "I can't tell which slip this is").
ADVICE = {
    "prefill_flops": "Check the formula: 2 FLOPs per parameter for each of the prompt_len tokens.",
    "prefill_intensity": "Check the formula: 2 FLOPs per parameter per token, times prompt_len tokens, per "
    "bytes_per_param bytes read.",
    "ridge_point": "Check the formula: FLOP/s divided by bytes per second.",
    "ttft_seconds": "Check the formula: prefill_flops(n_params, prompt_len) divided by peak_flops * utilisation.",
    "kv_bytes_written": "Check the formula: 2 x every one of the five arguments, multiplied together.",
}


#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "prefill_flops": ({"n_params": 70e9, "prompt_len": 4000},),
    "prefill_intensity": ({"prompt_len": 4000, "bytes_per_param": 1},),
    "ridge_point": ({"peak_flops": 1.979e15, "bandwidth": 4.8e12},),
    "is_compute_bound": ({"prompt_len": 4000, "bytes_per_param": 1, "peak_flops": 1.979e15, "bandwidth": 4.8e12},),
    "ttft_seconds": ({"n_params": 70e9, "prompt_len": 4000, "peak_flops": 3.958e15, "utilisation": 0.28},),
    "kv_bytes_written": (
        {"prompt_len": 4000, "n_layers": 80, "n_kv_heads": 8, "head_dim": 128, "bytes_per_value": 2},
    ),
}

NUMBERS = Numbers(
    spec=SPEC,
    params=PARAMS,
    units=UNITS,
    slips=SLIPS,
    probes={n: (p,) for n, p in PROBES.items()},
    advice=ADVICE,
    page=PAGE,
)
check_number = NUMBERS.check


# -- is_compute_bound: what a wrong comparison compares instead ------------------------------------------------

#: A ridge point of exactly 400 FLOPs per byte, in ints so that every way of writing the comparison is exact.
PEAK_400, BW_400 = 10**15, 2_500_000_000_000

#: (prompt_len, bytes_per_param) on the 400-ridge chip: cases that tell the usual wrong comparisons apart.
PANEL: tuple[tuple[int, float], ...] = (
    (200, 1), (201, 1), (199, 1), (300, 1), (300, 2), (500, 2), (450, 1), (150, 0.5), (1, 1), (5000, 1), (400, 2),
)

WRONG_RULES: tuple[tuple[str, Callable[[int, float, float], bool]], ...] = (
    ("It says True at the ridge point itself (`>=`): the docstring asks for greater than, so a prefill whose "
     "intensity equals the ridge point is not yet compute-bound.", lambda L, b, r: 2 * L / b >= r),
    ("It gives the opposite answer (`<` where `>` belongs): above the ridge point the arithmetic, not the memory, "
     "sets the time.", lambda L, b, r: 2 * L / b < r),
    ("It gives the opposite answer (`<=` where `>` belongs): above the ridge point the arithmetic, not the memory, "
     "sets the time.", lambda L, b, r: 2 * L / b <= r),
    ("It compares prompt_len itself with the ridge point: compare the intensity, 2 * prompt_len / bytes_per_param "
     "(call prefill_intensity).", lambda L, b, r: L > r),
    ("It compares prompt_len / bytes_per_param with the ridge point, the factor 2 left out: the intensity is "
     "2 FLOPs per parameter per token (call prefill_intensity).", lambda L, b, r: L / b > r),
    ("It multiplies by bytes_per_param: the intensity divides by the bytes read (call prefill_intensity).",
     lambda L, b, r: 2 * L * b > r),
    ("It compares the intensity with the ridge point of a peak halved: peak_flops is already the dense peak.",
     lambda L, b, r: 2 * L / b > r / 2),
    ("It returns True for every prompt, even a single token, which is memory-bound (is the intensity compared "
     "with bandwidth / peak_flops, the ridge point upside down?).", lambda L, b, r: True),
    ("It returns False for every prompt, even a long one, which is compute-bound (is the intensity compared with "
     "peak_flops itself rather than the ridge point, peak_flops / bandwidth?).", lambda L, b, r: False),
)


def wrong_comparison(learner: Any) -> str:
    """What the learner's is_compute_bound compares instead, from its verdicts on :data:`PANEL`, or ''. Run
    once per notebook, after a wrong verdict (its answer depends only on the learner's code)."""
    verdicts = panel_answers(learner, "is_compute_bound", [(L, b, PEAK_400, BW_400) for L, b in PANEL])
    if verdicts is None or not all(isinstance(v, bool) for v in verdicts):
        return ""
    rows = [(sentence, [rule(L, b, 400.0) for L, b in PANEL]) for sentence, rule in WRONG_RULES]
    return only_fit(verdicts, rows, lambda v, r: v is r)


def _structural_verdict(learner: Any, args: dict[str, Any], value: bool) -> str:
    """A structural slip (:func:`grader.diagnose.structural`) that gives the learner's verdict here and on every
    case of :data:`PANEL`, or ''."""
    calls = [(L, b, PEAK_400, BW_400) for L, b in PANEL]
    name = "is_compute_bound"
    return panel_slip(learner, name, is_compute_bound, PARAMS[name], calls, [(args, value)], PAGE[name])


def check_verdict(learner: Any, keywords: bool = False, **args: Any) -> None:
    """Call is_compute_bound on ``args``; a wrong verdict is explained from the panel, or said plainly to be
    one the grader cannot name."""
    got = NUMBERS.call(learner, "is_compute_bound", args, keywords)
    expected = is_compute_bound(**args)
    value = got.value
    if value is expected:
        return
    head = not_right(got, expected)
    if not isinstance(value, bool):
        if value is None:
            raise Mismatch(f"{head} It returned None: did you forget the `return` statement?")
        what = "a number" if number(value) is not None else f"{show(value)}"
        raise Mismatch(
            f"{head} It returned {what}, not True or False: return the comparison itself "
            "(`return intensity > ridge`), which is a bool."
        )
    intensity = prefill_intensity(args["prompt_len"], args["bytes_per_param"])
    ridge = ridge_point(args["peak_flops"], args["bandwidth"])
    facts = f"Here the intensity is {intensity:.6g} FLOPs per byte and the ridge point {ridge:.6g}."
    why = wrong_comparison(learner) or _structural_verdict(learner, args, value) or (
        "I can't tell which comparison it makes instead: compare prefill_intensity(prompt_len, bytes_per_param) "
        "with ridge_point(peak_flops, bandwidth), strictly greater."
    )
    raise Mismatch(f"{head} {facts} {why}")


prefill = lesson_fixture(
    "prefill",
    spec=SPEC, check_number=check_number, check_verdict=check_verdict, Carried=Carried, Use=Use, PEAK_400=PEAK_400,
    BW_400=BW_400, explain=explain,
)
