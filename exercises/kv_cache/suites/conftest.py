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
from collections.abc import Callable
from typing import Any

from grader.checks import Numbers, lesson_fixture

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
            "the bytes per value left out (1 byte whatever bytes_per_value says): multiply by bytes_per_value",
            lambda n_layers, n_kv_heads, head_dim, bytes_per_value: 2 * n_layers * n_kv_heads * head_dim,
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
    "kv_bytes_per_token": (
        {"n_layers": 37, "n_kv_heads": 5, "head_dim": 96, "bytes_per_value": 1},
        {"n_layers": 37, "n_kv_heads": 5, "head_dim": 96, "bytes_per_value": 2},  # a bytes_per_value left out shows
    ),
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


#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "kv_bytes_per_token": ({"n_layers": 80, "n_kv_heads": 8, "head_dim": 128, "bytes_per_value": 2},),
    "kv_budget_bytes": ({"memory_bytes": 282e9, "param_bytes": 70e9, "reserved_fraction": 0.1},),
    "max_tokens": ({"budget_bytes": 183.8e9, "kv_bytes_per_token": 327680},),
    "max_sequences": ({"budget_bytes": 183.8e9, "kv_bytes_per_token": 327680, "context_len": 8192},),
    "kv_step_seconds": (
        {"param_bytes": 70e9, "kv_bytes_per_token": 327680, "context_len": 8192, "bandwidth": 9.6e12},
    ),
}

#: Each count's quotient before it is rounded down.
UNROUNDED: dict[str, Callable[..., float]] = {
    "max_tokens": lambda budget_bytes, kv_bytes_per_token: budget_bytes / kv_bytes_per_token,
    "max_sequences": lambda budget_bytes, kv_bytes_per_token, context_len: (
        (budget_bytes // kv_bytes_per_token) / context_len
    ),
}

NUMBERS = Numbers(
    spec=SPEC,
    params=PARAMS,
    units=UNITS,
    slips=SLIPS,
    probes=PROBES,
    advice=ADVICE,
    page=PAGE,
    unrounded=UNROUNDED,
    counts=COUNTS,
    not_whole="It is not a whole number: a count of whole tokens or sequences, rounded down (`//`), is asked for.",
)
check_number = NUMBERS.check


kv = lesson_fixture("kv", spec=SPEC, check_number=check_number)
