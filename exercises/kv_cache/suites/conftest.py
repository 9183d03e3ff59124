"""Shared helpers for the hidden suites of the "The KV cache" lesson.

Test modules are imported with ``--import-mode=importlib``, so they reach these helpers through the ``kv``
fixture. Everything here runs in the trusted process: expected values come from the lesson's spec, never from
the learner's code.

How a wrong number is explained (issue 20: name a slip only where the evidence supports it). A function that
returns a wrong number is called again on its **probes**: fixed inputs on which every slip the lesson knows gives
a different set of values (``tests/test_lesson_kv_cache.py`` checks that). A slip is named only when it is the
one slip that gives every result seen, the first (wrong) one and the probes' (right or wrong: rounding to the
nearest whole number is right on a probe whose fraction is below a half); a generic slip (a unit factor, a
reciprocal) only when it is the same on the first probe; the same number on a probe is a hard-coded answer;
anything else is said plainly to be a slip the grader cannot tell. Counts (tokens, sequences) are compared
exactly: a whole number, rounded down.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from grader.config import REL_TOL
from grader.diagnose import near_miss, not_a_number, number, reciprocal, unit_slip
from grader.testing import Call, LearnerRaised, Mismatch, close, show, withheld

# -- the spec, computed independently of any notebook ----------------------------------------------------------


def kv_bytes_per_token(n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_value: float) -> float:
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value


def kv_budget_bytes(memory_bytes: float, param_bytes: float, reserved_fraction: float) -> float:
    return max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes)


def max_tokens(budget_bytes: float, kv_bytes_per_token: float) -> int:
    return int(budget_bytes // kv_bytes_per_token)


def max_sequences(budget_bytes: float, kv_bytes_per_token: float, context_len: int) -> int:
    return max_tokens(budget_bytes, kv_bytes_per_token) // context_len


def kv_step_seconds(param_bytes: float, kv_bytes_per_token: float, context_len: int, bandwidth: float) -> float:
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth


SPEC: dict[str, Callable[..., Any]] = {
    "kv_bytes_per_token": kv_bytes_per_token,
    "kv_budget_bytes": kv_budget_bytes,
    "max_tokens": max_tokens,
    "max_sequences": max_sequences,
    "kv_step_seconds": kv_step_seconds,
}

#: The parameter names the notebook gives each function, in order.
PARAMS: dict[str, tuple[str, ...]] = {
    "kv_bytes_per_token": ("n_layers", "n_kv_heads", "head_dim", "bytes_per_value"),
    "kv_budget_bytes": ("memory_bytes", "param_bytes", "reserved_fraction"),
    "max_tokens": ("budget_bytes", "kv_bytes_per_token"),
    "max_sequences": ("budget_bytes", "kv_bytes_per_token", "context_len"),
    "kv_step_seconds": ("param_bytes", "kv_bytes_per_token", "context_len", "bandwidth"),
}

UNITS = {
    "kv_bytes_per_token": "bytes",
    "kv_budget_bytes": "bytes",
    "max_tokens": "tokens",
    "max_sequences": "sequences",
    "kv_step_seconds": "s",
}

#: Functions that return a count: compared exactly, as whole numbers.
COUNTS = frozenset({"max_tokens", "max_sequences"})

# -- the lesson's own slips: (what the learner did, in their words; the value it gives) ------------------------

SlipRule = tuple[str, Callable[..., float]]

SLIPS: dict[str, tuple[SlipRule, ...]] = {
    "kv_bytes_per_token": (
        (
            "K or V only: every layer stores a key and a value vector, the factor 2",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: n_layers * n_kv_heads * head_dim * bytes_per_value,
        ),
        (
            "the layers left out: each of the n_layers layers stores its own keys and values",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: 2 * n_kv_heads * head_dim * bytes_per_value,
        ),
        (
            "the KV heads left out: each KV head stores its own key and value",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: 2 * n_layers * head_dim * bytes_per_value,
        ),
        (
            "the head dimension left out: each key and value is a vector of head_dim numbers",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: 2 * n_layers * n_kv_heads * bytes_per_value,
        ),
        (
            "bits, not bytes (x 8): bytes_per_value is already in bytes",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: (
                16 * n_layers * n_kv_heads * head_dim * bytes_per_value
            ),
        ),
        (
            "2 bytes per value written in, whatever bytes_per_value says: use the argument",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: 4 * n_layers * n_kv_heads * head_dim,
        ),
        (
            "GiB (divided by 2**30): return bytes",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: (
                2 * n_layers * n_kv_heads * head_dim * bytes_per_value / 2**30
            ),
        ),
        (
            "MB (divided by 1e6): return bytes",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: (
                2 * n_layers * n_kv_heads * head_dim * bytes_per_value / 1e6
            ),
        ),
    ),
    "kv_budget_bytes": (
        (
            "the reserve left out: keep reserved_fraction of the memory back for activations and the framework",
            lambda memory_bytes, param_bytes, reserved_fraction: max(0.0, memory_bytes - param_bytes),
        ),
        (
            "the reserve taken from what is left after the weights: it is a fraction of the whole memory, "
            "memory_bytes * (1 - reserved_fraction)",
            lambda memory_bytes, param_bytes, reserved_fraction: max(
                0.0, (memory_bytes - param_bytes) * (1 - reserved_fraction)
            ),
        ),
        (
            "reserved_fraction read as the fraction in use (memory_bytes * reserved_fraction): it is the fraction kept "
            "back, so 1 - reserved_fraction of the memory is usable",
            lambda memory_bytes, param_bytes, reserved_fraction: max(
                0.0, memory_bytes * reserved_fraction - param_bytes
            ),
        ),
        (
            "the weights left out: they are loaded first, and the cache gets what they leave",
            lambda memory_bytes, param_bytes, reserved_fraction: memory_bytes * (1 - reserved_fraction),
        ),
        (
            "reserved_fraction read as a percentage (divided by 100): it is a fraction, 0.1 for 10%",
            lambda memory_bytes, param_bytes, reserved_fraction: max(
                0.0, memory_bytes * (1 - reserved_fraction / 100) - param_bytes
            ),
        ),
        (
            "a negative budget when the weights do not fit: there is no room for a cache then, so return 0.0",
            lambda memory_bytes, param_bytes, reserved_fraction: memory_bytes * (1 - reserved_fraction) - param_bytes,
        ),
        (
            "the reserve written in as 10% (0.9 of the memory), whatever reserved_fraction says: use the argument",
            lambda memory_bytes, param_bytes, reserved_fraction: max(0.0, memory_bytes * 0.9 - param_bytes),
        ),
        (
            "GB (divided by 1e9): return bytes",
            lambda memory_bytes, param_bytes, reserved_fraction: (
                max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes) / 1e9
            ),
        ),
        (
            "GiB (divided by 2**30): return bytes",
            lambda memory_bytes, param_bytes, reserved_fraction: (
                max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes) / 2**30
            ),
        ),
    ),
    "max_tokens": (
        (
            "not rounded down: a token's cache fits whole or not at all, so return a whole number (`//`)",
            lambda budget_bytes, kv_bytes_per_token: budget_bytes / kv_bytes_per_token,
        ),
        (
            "rounded to the nearest whole number: round down (`//`), since a token whose cache does not fit whole "
            "cannot be held",
            lambda budget_bytes, kv_bytes_per_token: round(budget_bytes / kv_bytes_per_token),
        ),
        (
            "rounded up: round down (`//`), since the last token's cache must fit whole",
            lambda budget_bytes, kv_bytes_per_token: math.ceil(budget_bytes / kv_bytes_per_token),
        ),
        (
            "one token more than fits (+ 1): the count is the largest whole number of tokens that fit",
            lambda budget_bytes, kv_bytes_per_token: budget_bytes // kv_bytes_per_token + 1,
        ),
        (
            "the factor 2 counted again: kv_bytes_per_token already counts the key and the value",
            lambda budget_bytes, kv_bytes_per_token: budget_bytes // (2 * kv_bytes_per_token),
        ),
        (
            "the bytes counted as bits (x 8): both arguments are in bytes",
            lambda budget_bytes, kv_bytes_per_token: budget_bytes // (8 * kv_bytes_per_token),
        ),
        (
            "the reserve taken again (x 0.9): budget_bytes is already what is left for the cache",
            lambda budget_bytes, kv_bytes_per_token: 0.9 * budget_bytes // kv_bytes_per_token,
        ),
        (
            "bytes per token, not tokens: the formula is upside down",
            lambda budget_bytes, kv_bytes_per_token: kv_bytes_per_token / budget_bytes,
        ),
    ),
    "max_sequences": (
        (
            "not rounded down: only whole sequences can be served, so return a whole number (`//`)",
            lambda budget_bytes, kv_bytes_per_token, context_len: budget_bytes / (kv_bytes_per_token * context_len),
        ),
        (
            "rounded to the nearest whole number: round down (`//`), since a sequence that does not fit whole "
            "cannot be served",
            lambda budget_bytes, kv_bytes_per_token, context_len: round(
                budget_bytes / (kv_bytes_per_token * context_len)
            ),
        ),
        (
            "rounded up: round down (`//`), since the last sequence must fit whole",
            lambda budget_bytes, kv_bytes_per_token, context_len: math.ceil(
                budget_bytes / (kv_bytes_per_token * context_len)
            ),
        ),
        (
            "one sequence more than fits (+ 1): the count is the largest whole number of sequences that fit",
            lambda budget_bytes, kv_bytes_per_token, context_len: (
                budget_bytes // (kv_bytes_per_token * context_len) + 1
            ),
        ),
        (
            "a context of 8,192 written in, whatever context_len says: use the argument",
            lambda budget_bytes, kv_bytes_per_token, context_len: budget_bytes // (kv_bytes_per_token * 8192),
        ),
        (
            "the tokens that fit, not the sequences: each sequence needs context_len of them, so divide by context_len",
            lambda budget_bytes, kv_bytes_per_token, context_len: budget_bytes // kv_bytes_per_token,
        ),
        (
            "the factor 2 counted again: kv_bytes_per_token already counts the key and the value",
            lambda budget_bytes, kv_bytes_per_token, context_len: (
                budget_bytes // (2 * kv_bytes_per_token * context_len)
            ),
        ),
        (
            "one token too many per sequence (context_len + 1): a sequence of context_len tokens needs context_len "
            "positions",
            lambda budget_bytes, kv_bytes_per_token, context_len: (
                budget_bytes // (kv_bytes_per_token * (context_len + 1))
            ),
        ),
        (
            "the reserve taken again (x 0.9): budget_bytes is already what is left for the cache",
            lambda budget_bytes, kv_bytes_per_token, context_len: (
                0.9 * budget_bytes // (kv_bytes_per_token * context_len)
            ),
        ),
        (
            "context_len multiplied in: a sequence needs context_len times the bytes per token, so divide by it",
            lambda budget_bytes, kv_bytes_per_token, context_len: budget_bytes // kv_bytes_per_token * context_len,
        ),
    ),
    "kv_step_seconds": (
        (
            "the KV cache left out: each step also reads kv_bytes_per_token * context_len bytes of it",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: param_bytes / bandwidth,
        ),
        (
            "one position of KV cache: the step reads the cache of all context_len positions",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                (param_bytes + kv_bytes_per_token) / bandwidth
            ),
        ),
        (
            "the weights left out: every step reads all of them too",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                kv_bytes_per_token * context_len / bandwidth
            ),
        ),
        (
            "only the KV bytes divided by the bandwidth (brackets): add the bytes first, then divide the whole sum",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                param_bytes + kv_bytes_per_token * context_len / bandwidth
            ),
        ),
        (
            "one position too many (context_len + 1): the step reads the context_len positions already there",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                (param_bytes + kv_bytes_per_token * (context_len + 1)) / bandwidth
            ),
        ),
        (
            "the time in milliseconds (x 1000): return seconds",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                1e3 * (param_bytes + kv_bytes_per_token * context_len) / bandwidth
            ),
        ),
        (
            "the bandwidth counted in bits (x 8): it is in bytes per second",
            lambda param_bytes, kv_bytes_per_token, context_len, bandwidth: (
                (param_bytes + kv_bytes_per_token * context_len) / (8 * bandwidth)
            ),
        ),
    ),
}

#: For each function, inputs on which all its slips (and the right answer) give different values. The counts have
#: three: one whose quotient's fraction is above a half (rounding to nearest is wrong there), one below (right),
#: one whole (rounding up is right there, one more than fits is not);
#: the budget has one where the weights do not fit (a missing 0.0 floor shows only there).
PROBES: dict[str, tuple[dict[str, Any], ...]] = {
    "kv_bytes_per_token": ({"n_layers": 37, "n_kv_heads": 5, "head_dim": 96, "bytes_per_value": 1},),
    "kv_budget_bytes": (
        {"memory_bytes": 95e9, "param_bytes": 31e9, "reserved_fraction": 0.45},
        {"memory_bytes": 80e9, "param_bytes": 75e9, "reserved_fraction": 0.1},  # the weights do not fit
    ),
    "max_tokens": (
        {"budget_bytes": 10_007_050_000, "kv_bytes_per_token": 98_304},
        {"budget_bytes": 3_000_000_000, "kv_bytes_per_token": 131_072},
        {"budget_bytes": 1_024_000, "kv_bytes_per_token": 4096},  # exactly 250: ceil is right, + 1 is not
    ),
    "max_sequences": (
        {"budget_bytes": 95_000_000_000, "kv_bytes_per_token": 98_304, "context_len": 256},
        {"budget_bytes": 43_000_000_000, "kv_bytes_per_token": 131_072, "context_len": 200},
        {"budget_bytes": 245_760, "kv_bytes_per_token": 512, "context_len": 16},  # exactly 30
    ),
    "kv_step_seconds": (
        {"param_bytes": 3.1e9, "kv_bytes_per_token": 983_040, "context_len": 7001, "bandwidth": 2.7e12},
    ),
}

#: What to check when no known slip fits (said with "I can't tell which slip this is").
ADVICE = {
    "kv_bytes_per_token": "Check the formula: 2 x every one of the four arguments, multiplied together.",
    "kv_budget_bytes": "Check the formula: memory_bytes * (1 - reserved_fraction) - param_bytes, and 0.0 if that is "
    "negative.",
    "max_tokens": "Check the formula: budget_bytes // kv_bytes_per_token, as an int.",
    "max_sequences": "Check the formula: max_tokens(budget_bytes, kv_bytes_per_token) // context_len.",
    "kv_step_seconds": "Check the formula: (param_bytes + kv_bytes_per_token * context_len) / bandwidth.",
}


def _args_text(name: str, args: dict[str, Any]) -> str:
    return f"{name}({', '.join(show(args[p]) for p in PARAMS[name])})"


def same(name: str, a: float, b: float) -> bool:
    """Whether two results of ``name`` are the same: exactly for a count, to 1e-6 otherwise."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    if name in COUNTS:
        return abs(a - b) <= 1e-9 * max(1.0, abs(b))
    return close(a, b, REL_TOL)


def right(name: str, value: Any, args: dict[str, Any]) -> bool:
    got = number(value)
    return got is not None and same(name, got, SPEC[name](**args))


def slip_value(rule: Callable[..., float], args: dict[str, Any]) -> float:
    """What a slip gives on ``args``; NaN where the slip itself divides by zero (it then explains nothing)."""
    try:
        return float(rule(**args))
    except ZeroDivisionError:
        return math.nan


def consistent_slips(name: str, seen: Sequence[tuple[float, dict[str, Any]]]) -> list[str]:
    """The lesson's slips of ``name`` that give every result seen (result, inputs); the first must be wrong."""
    (_, args), *_ = seen
    expected = SPEC[name](**args)
    found = []
    for sentence, rule in SLIPS[name]:
        if same(name, slip_value(rule, args), expected):
            continue  # this slip would have been right on the first inputs
        if all(same(name, value, slip_value(rule, a)) for value, a in seen):
            found.append(sentence)
    return found


def _generic(value: float, expected: float, unit: str) -> str:
    """A unit factor or a reciprocal: sentences that depend only on the ratio of the answer to the right one."""
    slip = unit_slip(value, expected, unit)
    if slip:
        return slip.sentence
    return reciprocal(value, expected)


def why_wrong(name: str, first: tuple[Any, dict[str, Any]], probes: Sequence[tuple[Any, dict[str, Any]]] | None) -> str:
    """Why a wrong number is wrong, from the learner's results on the first inputs and on the probes (``probes``
    None if a probe call failed): a slip named only when it explains them all."""
    (v1, a1) = first
    e1 = SPEC[name](**a1)
    why = not_a_number(v1)
    if why:
        return why
    value = float(v1)
    if not math.isfinite(value):
        return f"It is {value}: was there a division by zero or an overflow?"
    if probes is None:
        return f"I can't tell which slip this is (the check on other inputs failed). {ADVICE[name]}"
    v2, a2 = probes[0]
    e2 = SPEC[name](**a2)
    n2 = number(v2)
    if n2 is not None and type(v1) is type(v2) and v1 == v2 and not same(name, e1, e2):
        return (
            f"{_args_text(name, a2)} returned {show(v2)} too: it gives the same answer whatever the inputs. Is it "
            "hard-coded, or copied from the worked example? Compute it from the arguments."
        )
    numbers = [number(v) for v, _ in probes]
    if any(n is None for n in numbers):
        return f"I can't tell which slip this is: {_args_text(name, a2)} returned {show(v2)}. {ADVICE[name]}"
    seen = [(value, a1)] + [(float(n), a) for n, (_, a) in zip(numbers, probes, strict=True) if n is not None]
    fits = consistent_slips(name, seen)
    if len(fits) == 1:
        return f"That is {fits[0]}."
    if name in COUNTS and value != math.floor(value):
        return "It is not a whole number: a count of whole tokens or sequences, rounded down (`//`), is asked for."
    unit = UNITS[name]
    assert n2 is not None
    g1, g2 = _generic(value, e1, unit), _generic(n2, e2, unit)
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
    return (
        f"{got.text} returned {show(got.value)}, which is not right"
        + withheld(f" (expected {expected:.6g}{unit_text})")
        + "."
    )


def call_with(learner: Any, name: str, args: dict[str, Any], keywords: bool = False) -> Call:
    """Call the learner's ``name`` positionally (or by the notebook's parameter names); say so plainly when a
    keyword call fails because a name was changed."""
    if not keywords:
        return learner.call(name, *(args[p] for p in PARAMS[name]))
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
    """Call the learner's function ``name`` on ``args`` and compare with the spec; if it is wrong, call it on the
    function's probes and explain from every result."""
    got = call_with(learner, name, args, keywords)
    expected = SPEC[name](**args)
    if right(name, got.value, args):
        return
    head = _head(got, expected, UNITS[name])
    probes: list[tuple[Any, dict[str, Any]]] | None = None
    value = number(got.value)
    if value is not None and math.isfinite(value):
        try:
            probes = [(call_with(learner, name, probe).value, probe) for probe in PROBES[name]]
        except LearnerRaised:
            probes = None
    raise Mismatch(f"{head} {why_wrong(name, (got.value, args), probes)}")


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
    text = (
        f"`{name}` is {show(value)}, which is not right for {meaning}" + withheld(f" (expected {expected:.6g})") + "."
    )
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
    right_letter = withheld(f" (The right letter is {correct.strip().upper()}.)")
    if not isinstance(value, str):
        raise Mismatch(f"`{name}` is {show(value)}; expected one of the letters {letters}, as a string." + right_letter)
    answer = value.strip().upper()
    if answer == correct.strip().upper():
        return
    if len(answer) != 1 or answer not in "ABCD":
        raise Mismatch(
            f"`{name}` is {show(value)}, which is not one of {letters}: give just the letter of one option, as a "
            "string." + right_letter
        )
    raise Mismatch(f"`{name}` is {show(value)}: {answer!r} is not the right option.{right_letter} {hint}")


@pytest.fixture(scope="session")
def kv() -> SimpleNamespace:
    """The lesson's spec formulas and checks, for the test modules."""
    return SimpleNamespace(
        spec=SPEC,
        check_number=check_number,
        expect_value=expect_value,
        expect_choice=expect_choice,
    )
