"""Shared helpers for the hidden suites of the "Decode: one token at a time" lesson.

Test modules are imported with ``--import-mode=importlib``, so they cannot import this file; they reach
its helpers through the ``decode`` fixture (a namespace of plain functions). Everything here runs in the
trusted process: the expected values are computed from the lesson's spec (not from the learner), and the
recording ``next_token`` functions keep their records where learner code cannot touch them.

Units follow the notebook: decimal units, sizes in bytes, bandwidths in bytes per second, times in seconds.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Sequence

from grader.checks import call_with, lesson_fixture
from grader.config import REL_TOL, STAND_IN_MAX_TOKENS
from grader.diagnose import UNSURE, Candidate, candidates, confirmed, explain, kind, number, structural, structural_slip
from grader.testing import Call, LearnerRaised, Mismatch, show, withheld

VOCAB = 50_000


# -- the spec, computed independently of any notebook -------------------------------------------------------

def decode_step_seconds(param_bytes: float, bandwidth: float) -> float:
    return param_bytes / bandwidth


def tokens_per_second(param_bytes: float, bandwidth: float) -> float:
    return bandwidth / param_bytes


def decode_time(n_tokens: int, param_bytes: float, bandwidth: float) -> float:
    return n_tokens * param_bytes / bandwidth


def request_time(ttft: float, itl: float, n_out: int) -> float:
    return ttft + (n_out - 1) * itl


def kv_step_seconds(param_bytes: float, kv_bytes_per_token: float, context_len: int, bandwidth: float) -> float:
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth


def kv_sum(n_tokens: int, first_context: int, param_bytes: float, kv_bytes_per_token: float, bandwidth: float) -> float:
    """Sum of kv_step_seconds over contexts first_context, first_context + 1, ..., first_context + n_tokens - 1."""
    if n_tokens <= 0:
        return 0.0
    contexts = n_tokens * first_context + n_tokens * (n_tokens - 1) / 2
    return (n_tokens * param_bytes + kv_bytes_per_token * contexts) / bandwidth


def kv_decode_time(n_tokens: int, prompt_len: int, param_bytes: float, kv_bytes_per_token: float, bandwidth: float) -> float:
    return kv_sum(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth)


# -- likely mistakes: (what was computed, why it is wrong, the value it gives) -----------------------------------

Mistake = tuple[str, str, float]


def step_mistakes(param_bytes: float, bandwidth: float) -> list[Mistake]:
    step = param_bytes / bandwidth
    return [
        ("bandwidth / param_bytes", "the formula is upside down; time = bytes / (bytes per second).", bandwidth / param_bytes),
        ("param_bytes / bandwidth in milliseconds", "the step time should be in seconds.", step * 1e3),
        ("param_bytes * bandwidth", "time = bytes / (bytes per second), a division.", param_bytes * bandwidth),
        ("param_bytes // bandwidth", "`//` rounds down to whole seconds; use `/`.", param_bytes // bandwidth),
    ]


def tps_mistakes(param_bytes: float, bandwidth: float) -> list[Mistake]:
    return [
        ("param_bytes / bandwidth", "that is the seconds per token; tokens per second is its reciprocal.", param_bytes / bandwidth),
        ("1 / (the step time in milliseconds)", "that is tokens per millisecond; use the step time in seconds.",
         bandwidth / param_bytes / 1e3),
        ("1000 / (the step time in seconds)", "tokens per second is 1 / seconds per step.", 1e3 * bandwidth / param_bytes),
    ]


def decode_time_mistakes(n_tokens: int, param_bytes: float, bandwidth: float) -> list[Mistake]:
    step = param_bytes / bandwidth
    wrong = [
        ("n_tokens * tokens_per_second(...)", "multiply by the seconds per token, not by the tokens per second.",
         n_tokens * bandwidth / param_bytes),
        ("one step, decode_step_seconds(...)", "n_tokens new tokens take n_tokens steps.", step),
        ("(n_tokens - 1) steps", "one step too few: every new token needs its own step.", (n_tokens - 1) * step),
        ("(n_tokens + 1) steps", "one step too many: n_tokens new tokens need n_tokens steps.", (n_tokens + 1) * step),
        ("n_tokens * decode_step_seconds(...) in milliseconds", "the time should be in seconds.", n_tokens * step * 1e3),
    ]
    if n_tokens:
        wrong.append(("decode_step_seconds(...) / n_tokens", "n_tokens steps take n_tokens times as long as one.", step / n_tokens))
    return wrong


def request_time_mistakes(ttft: float, itl: float, n_out: int) -> list[Mistake]:
    right = ttft + (n_out - 1) * itl
    return [
        ("ttft + n_out * itl", "a token too many: the first token arrives at ttft, so only n_out - 1 gaps of itl follow.",
         ttft + n_out * itl),
        ("(n_out - 1) * itl", "the ttft is missing: the wait for the first token is part of the request.", (n_out - 1) * itl),
        ("n_out * itl", "the ttft is missing: the first token arrives at ttft, then n_out - 1 gaps of itl follow.", n_out * itl),
        ("ttft + (n_out - 2) * itl", "a token too few: after the first token, n_out - 1 gaps of itl follow.", ttft + (n_out - 2) * itl),
        ("n_out * ttft", "the ttft is paid once, by the first token only; the others come itl apart.", n_out * ttft),
        ("n_out * ttft + (n_out - 1) * itl", "the ttft is paid once, by the first token only, not by every token.",
         n_out * ttft + (n_out - 1) * itl),
        ("ttft + (n_out - 1) / itl", "itl is a time between tokens (seconds), not a rate: multiply by it, do not divide.",
         ttft + (n_out - 1) / itl),
        ("(ttft + itl) * (n_out - 1)", "the ttft is paid once, not once per token.", (ttft + itl) * (n_out - 1)),
        ("ttft + (n_out - 1) * itl in milliseconds", "the time should be in seconds.", right * 1e3),
        ("n_out / (ttft + (n_out - 1) * itl)", "that is the request's output rate in tokens per second; the question "
         "asks for its time, in seconds.", n_out / right if right else math.inf),
    ]


def kv_step_mistakes(param_bytes: float, kv_bytes_per_token: float, context_len: int, bandwidth: float) -> list[Mistake]:
    return [
        ("param_bytes / bandwidth", "the KV cache is left out: each step also reads kv_bytes_per_token * context_len bytes.",
         param_bytes / bandwidth),
        ("(param_bytes + kv_bytes_per_token) / bandwidth", "the KV bytes per token must be multiplied by context_len.",
         (param_bytes + kv_bytes_per_token) / bandwidth),
        ("kv_bytes_per_token * context_len / bandwidth", "the weights are left out: every step reads all of them too.",
         kv_bytes_per_token * context_len / bandwidth),
        ("(param_bytes + kv_bytes_per_token * (context_len + 1)) / bandwidth",
         "context off by one: the step reads the KV of the context_len tokens already there.",
         (param_bytes + kv_bytes_per_token * (context_len + 1)) / bandwidth),
        ("param_bytes + kv_bytes_per_token * context_len / bandwidth",
         "brackets: only the KV bytes were divided by the bandwidth; add the bytes first, then divide the whole sum.",
         param_bytes + kv_bytes_per_token * context_len / bandwidth),
        ("(param_bytes + kv_bytes_per_token) * context_len / bandwidth",
         "the weights are read once per step, not once per position: multiply only the KV bytes by context_len.",
         (param_bytes + kv_bytes_per_token) * context_len / bandwidth),
        ("(param_bytes + 2 * kv_bytes_per_token * context_len) / bandwidth",
         "the KV bytes are counted twice: kv_bytes_per_token already holds both K and V of one position.",
         (param_bytes + 2 * kv_bytes_per_token * context_len) / bandwidth),
        ("kv_bytes_per_token taken as megabytes (times 1e6)", "kv_bytes_per_token is already in bytes.",
         (param_bytes + kv_bytes_per_token * 1e6 * context_len) / bandwidth),
        ("param_bytes * kv_bytes_per_token * context_len / bandwidth", "the two reads add up; they do not multiply.",
         param_bytes * kv_bytes_per_token * context_len / bandwidth),
        ("(param_bytes + kv_bytes_per_token * context_len) / bandwidth in milliseconds", "the time should be in seconds.",
         (param_bytes + kv_bytes_per_token * context_len) / bandwidth * 1e3),
    ]


def kv_decode_mistakes(n_tokens: int, prompt_len: int, param_bytes: float, kv_bytes_per_token: float, bandwidth: float) -> list[Mistake]:
    args = (param_bytes, kv_bytes_per_token, bandwidth)
    return [
        ("n_tokens * param_bytes / bandwidth", "the KV cache is ignored; it is read every step and grows by one token per step.",
         n_tokens * param_bytes / bandwidth),
        ("the sum over contexts prompt_len + 1 ... prompt_len + n_tokens",
         "off by one: the first new token (k = 0) is computed with a context of prompt_len.",
         kv_sum(n_tokens, prompt_len + 1, *args)),
        ("n_tokens * kv_step_seconds(..., prompt_len, ...)",
         "the context is kept constant; it grows by one token each step (prompt_len + k).",
         n_tokens * kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len, bandwidth)),
        ("n_tokens * kv_step_seconds(..., prompt_len + n_tokens, ...)",
         "every step is priced at the final context; step k reads a context of prompt_len + k.",
         n_tokens * kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + n_tokens, bandwidth)),
        ("the sum over contexts 0 ... n_tokens - 1", "prompt_len is left out: the prompt's tokens are in the KV cache too.",
         kv_sum(n_tokens, 0, *args)),
        ("n_tokens + 1 steps (k = 0 ... n_tokens)", "one step too many: n_tokens new tokens take n_tokens steps.",
         kv_sum(n_tokens + 1, prompt_len, *args)),
        ("n_tokens - 1 steps", "one step too few: n_tokens new tokens take n_tokens steps.", kv_sum(n_tokens - 1, prompt_len, *args)),
        ("the right sum in milliseconds", "the time should be in seconds.", kv_sum(n_tokens, prompt_len, *args) * 1e3),
    ]


# -- numbers ---------------------------------------------------------------------------------------------------

def _as_number(value: Any) -> float | None:
    return number(value)


def _near(a: float, b: float, rel: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def explain_number(value: Any, expected: float, mistakes: Sequence[Mistake], match_rel: float = 1e-6, unit: str = "") -> str:
    """Name the mistake behind a wrong number: one of the lesson's own first, then a generic slip
    (:mod:`grader.diagnose`: a unit factor, a reciprocal, a rounded value)."""
    known = [(f"That is what {formula} gives: {why}", wrong) for formula, why, wrong in mistakes]
    return explain(value, expected, unit=unit, rel=match_rel, known=known)


def slips(value: Any, expected: float, mistakes: Sequence[Mistake], unit: str = "") -> list[Candidate]:
    """Every slip that explains a wrong number, the lesson's own first (see :func:`grader.diagnose.candidates`)."""
    known = [(f"That is what {formula} gives: {why}", wrong) for formula, why, wrong in mistakes]
    return candidates(value, expected, unit=unit, rel=1e-6, known=known)


def _not_right(got: Call, expected: str) -> str:
    """The head of a function's feedback; the expected result is withheld unless the lesson reveals it."""
    return f"{got.text} returned {show(got.value)}, which is not right" + withheld(f" (expected {expected})") + "."


# -- one call, checked against the spec, with a second call if it is wrong ------------------------------------

_COUNTS = ("n_tokens", "n_out", "batch", "context_len", "prompt_len")
_FACTORS = (1.37, 0.61, 1.9, 0.73, 1.21)


def _perturbed(args: dict[str, Any]) -> dict[str, Any]:
    """Other physically meaningful inputs: each size scaled by its own factor (so no ratio stays the same),
    each count doubled plus one."""
    out: dict[str, Any] = {}
    for i, (key, v) in enumerate(args.items()):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            out[key] = v
        elif key in _COUNTS:
            out[key] = int(v) * 2 + 1
        else:
            scaled = v * _FACTORS[i % len(_FACTORS)]
            out[key] = int(scaled) if isinstance(v, int) else scaled
    return out


def _varied(args: dict[str, Any], key: str) -> dict[str, Any]:
    """``args`` with only ``key`` changed, by a lot (a count to 2n + 3, a size times 3), so that the right answer
    moves well beyond any rounding."""
    v = args[key]
    out = dict(args)
    out[key] = int(v) * 2 + 3 if key in _COUNTS else (int(v * 3) if isinstance(v, int) else v * 3)
    return out


def _moves(a: Any, b: Any) -> bool:
    """Whether two right answers differ by more than 20 % (either part, for a tuple)."""
    if isinstance(a, tuple):
        return any(_moves(x, y) for x, y in zip(a, b))
    return abs(float(a) - float(b)) > 0.2 * max(abs(float(a)), abs(float(b)))


def _call(learner: Any, name: str, args: dict[str, Any]) -> Call | None:
    try:
        return learner.call(name, *(args[p] for p in PARAMS[name]))
    except LearnerRaised:
        return None


def _unchanged(got: Call, again: Call | None) -> bool:
    return again is not None and type(again.value) is type(got.value) and again.value == got.value


def _ignored(learner: Any, name: str, args: dict[str, Any], got: Call) -> tuple[list[str], Call | None]:
    """The numeric arguments whose change (alone, by a lot) moves the right answer but not the learner's, and
    one of those calls, to quote."""
    ignored, shown = [], None
    for key in PARAMS[name]:
        v = args[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v:
            continue
        other = _varied(args, key)
        if not _moves(CHECKS[name][0](**other), CHECKS[name][0](**args)):
            continue
        again = _call(learner, name, other)
        if _unchanged(got, again):
            ignored.append(key)
            shown = shown or again
    return ignored, shown


def check_call(learner: Any, name: str, keywords: bool = False, **args: Any) -> None:
    """Call the learner's ``name`` with ``args`` (positionally, or by name), check it against the spec, and
    explain a wrong result from more than one input: each argument is changed alone (an answer that does not
    move with one of them ignores it, or is hard-coded), and a slip is named only if the answer on other
    inputs shows the same slip (else the feedback says plainly it cannot tell which slip it is)."""
    spec, mistakes, unit = CHECKS[name]
    got = call_kw(learner, name, PARAMS[name], **args) if keywords else learner.call(name, *(args[p] for p in PARAMS[name]))
    expected = spec(**args)
    if name == "batch_throughput":
        try:
            expect_batch(got, **args)
            return
        except Mismatch as wrong:
            first = str(wrong)
    else:
        value = _as_number(got.value)
        if value is not None and _near(value, expected, REL_TOL):
            return
        first = _not_right(got, f"{expected:.6g} {unit}, within {REL_TOL:g} relative")
    other = _perturbed(args)
    again = None if _same_answer(spec(**other), expected) else _call(learner, name, other)
    seen = [(args, got.value)] + ([(other, again.value)] if again is not None else [])
    ignored, shown = _ignored(learner, name, args, got)
    if ignored and name != "batch_throughput" and again is not None:
        # An argument that does not move the answer here may be one swapped with another that is 0 here (a weight
        # and a cache size swapped, at a context of 0): a structural slip that explains every answer is said instead.
        shapes = structural(spec, PARAMS[name], seen, PAGE.get(name, ()))
        if len(shapes) == 1 and shapes[0].key.startswith("order"):
            raise Mismatch(f"{first} {shapes[0].sentence[0].upper()}{shapes[0].sentence[1:]}.")
    zero = number(got.value) == 0
    # The same number again may still be a slip of the lesson's (a `//` giving 0 every time), not a constant.
    explained = number(got.value) is not None and any(_same_answer(got.value, w) for _, _, w in mistakes(**args))
    numeric = [p for p in PARAMS[name] if isinstance(args[p], (int, float)) and not isinstance(args[p], bool) and args[p]]
    if ignored and shown is not None and not (zero and explained):
        if len(ignored) == len(numeric) or zero:
            raise Mismatch(
                f"{got.text} and {shown.text} both returned {show(got.value)}: it gives the same answer whatever "
                "the inputs. "
                + ("Does a loop run too few steps (none at all: check its range), or a `//` round down to 0? "
                   if zero else "Is it hard-coded, or copied from the worked example? ")
                + "Compute it from the arguments."
            )
        names = " or ".join(f"`{k}`" for k in ignored)
        if name == "batch_throughput":  # the parts' slips would guess at a factor the learner wrote on purpose
            first = batch_head(got, **args)
        raise Mismatch(
            f"{first} Changing only {names} does not change the answer ({shown.text} also returned "
            f"{show(got.value)}): is a fixed number (the worked example's?) used in place of {names}? "
            "Compute it from the arguments."
        )
    if name == "batch_throughput":
        raise Mismatch(first)
    found = slips(got.value, expected, mistakes(**args), unit)
    if not found:
        shape = structural_slip(spec, PARAMS[name], seen, PAGE.get(name, ()))
        raise Mismatch(f"{first} {shape}" if shape else first)
    second = None
    if again is not None:
        value = _as_number(again.value)
        if value is not None and _near(value, spec(**other), REL_TOL):
            # Right on the other inputs: keep only the lesson's slips that are right there too (a slip of n = 0,
            # say); the others would have shown.
            right_there = {
                f"known:That is what {formula} gives: {why}"
                for formula, why, wrong in mistakes(**other)
                if _same_answer(wrong, spec(**other))
            }
            kept = [c for c in found if c.key in right_there]
            found = kept or found
            # A slip of the lesson's right on the other inputs too shows only at a special point (0 tokens taken as
            # one step); a structural slip may explain the same answers better, from a third input right as well: a
            # guard returning 0 at a context of 0 is what (param_bytes + kv) * context_len gives there, and is right
            # at contexts of 1 and 3, where that formula is not.
            third = _perturbed(other)
            again3 = _call(learner, name, third) if kept else None
            value3 = None if again3 is None else _as_number(again3.value)
            if again3 is not None and value3 is not None and _near(value3, spec(**third), REL_TOL):
                shape = structural_slip(spec, PARAMS[name], [*seen, (third, again3.value)], PAGE.get(name, ()))
                if shape:
                    raise Mismatch(f"{first} {shape}")
        else:
            second = slips(again.value, spec(**other), mistakes(**other), unit)
    slip = confirmed(found, second)
    shape = "" if slip else structural_slip(spec, PARAMS[name], seen, PAGE.get(name, ()))
    raise Mismatch(f"{first} {slip.sentence if slip else shape or UNSURE}")


def _same_answer(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(_same_answer(x, y) for x, y in zip(a, b))
    return math.isfinite(float(a)) and math.isfinite(float(b)) and _near(float(a), float(b))


# -- keyword calls -----------------------------------------------------------------------------------------------

def call_kw(learner: Any, name: str, params: Sequence[str], **kwargs: Any) -> Call:
    """Call with the documented parameter names as keywords; say so plainly when a name was changed (the shared
    :func:`grader.checks.call_with`)."""
    return call_with(learner, name, params, kwargs, keywords=True)


# -- batch_throughput ------------------------------------------------------------------------------------------

def batch_throughput(param_bytes: float, bandwidth: float, batch: int) -> tuple[float, float]:
    per_stream = bandwidth / param_bytes
    return batch * per_stream, per_stream


def expect_batch(got: Call, param_bytes: float, bandwidth: float, batch: int) -> None:
    aggregate, per_stream = batch_throughput(param_bytes, bandwidth, batch)
    value = got.value
    head = batch_head(got, param_bytes, bandwidth, batch)
    if value is None:
        raise Mismatch(head + " It returned None: did you forget the `return` statement?")
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        what = f"{kind(value)} of {len(value)} items" if isinstance(value, (tuple, list)) else kind(value)
        raise Mismatch(head + f" It returned {what}: return the pair `aggregate, per_stream`, in that order, as a tuple.")
    numbers = [_as_number(v) for v in value]
    if any(n is None for n in numbers):
        raise Mismatch(head + f" Both items must be numbers; it returned {kind(value[0])} and {kind(value[1])}.")
    agg, per = numbers
    assert agg is not None and per is not None

    def near(a: float, b: float) -> bool:
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-300)

    if near(agg, aggregate) and near(per, per_stream):
        if type(value) is not tuple:
            raise Mismatch(
                f"{got.text} returned the right numbers, but as {kind(value)}, not a tuple: the function must return "
                "the tuple `(aggregate, per_stream)`; `return aggregate, per_stream` makes one."
            )
        return
    if batch != 1:
        if near(agg, per_stream) and near(per, aggregate):
            raise Mismatch(head + " The two numbers are swapped: return the aggregate (all streams together) first, then the per-stream rate.")
        if near(agg, aggregate) and near(per, aggregate):
            raise Mismatch(
                head + " The per-stream rate was multiplied by the batch too. Batching does not make one user's stream "
                "faster: each step still reads all the weights once and gives each stream one token, so a stream gets "
                "tokens_per_second(...) tokens per second; only the total grows with the batch."
            )
        if near(agg, per_stream) and near(per, per_stream / batch):
            raise Mismatch(
                head + " You shared one stream's rate among the batch. A decode step reads the weights once and "
                "produces one token for every stream in the batch, so the aggregate is batch * tokens_per_second(...) "
                "and each stream keeps tokens_per_second(...)."
            )
        if near(agg, aggregate) and near(per, per_stream / batch):
            raise Mismatch(
                head + " The per-stream rate was divided by the batch. While decoding is memory-bound, a step takes "
                "as long for a batch as for one sequence, so each stream still gets tokens_per_second(...)."
            )
        if near(agg, per_stream) and near(per, per_stream):
            raise Mismatch(head + " The aggregate was not multiplied by the batch: one step makes a token for every stream.")
    parts, whys = [], []
    step = [("param_bytes / bandwidth", "that is the seconds per step, not tokens per second.", param_bytes / bandwidth)]
    for label, v, e in (("aggregate", agg, aggregate), ("per_stream", per, per_stream)):
        if not near(v, e):
            whys.append(explain_number(v, e, step, unit="tokens/s"))
            parts.append(f"The {label} is {show(v)}, which is not right" + withheld(f" (expected {e:.6g})") + ".")
    if len(whys) == 2 and whys[0] == whys[1]:  # the same slip in both: say it once
        parts.append(f"Both are off the same way. {whys[0]}" if whys[0] else "")
    else:
        parts = [f"{p} {w}".strip() for p, w in zip(parts, whys)]
    raise Mismatch(" ".join([head, *filter(None, parts)]))


def batch_head(got: Call, param_bytes: float, bandwidth: float, batch: int) -> str:
    aggregate, per_stream = batch_throughput(param_bytes, bandwidth, batch)
    return _not_right(got, f"(aggregate, per_stream) = ({aggregate:.6g}, {per_stream:.6g}) tokens per second")


#: For each numeric function: (the spec, its likely mistakes, the unit of its answer).
CHECKS: dict[str, tuple[Callable[..., Any], Callable[..., list[Mistake]], str]] = {
    "decode_step_seconds": (decode_step_seconds, step_mistakes, "s"),
    "tokens_per_second": (tokens_per_second, tps_mistakes, "tokens/s"),
    "decode_time": (decode_time, decode_time_mistakes, "s"),
    "request_time": (request_time, request_time_mistakes, "s"),
    "kv_step_seconds": (kv_step_seconds, kv_step_mistakes, "s"),
    "kv_decode_time": (kv_decode_time, kv_decode_mistakes, "s"),
    "batch_throughput": (batch_throughput, lambda **_: [], "tokens/s"),
}

#: The parameter names the notebook gives each function, in order.
PARAMS: dict[str, tuple[str, ...]] = {
    "decode_step_seconds": ("param_bytes", "bandwidth"),
    "tokens_per_second": ("param_bytes", "bandwidth"),
    "decode_time": ("n_tokens", "param_bytes", "bandwidth"),
    "request_time": ("ttft", "itl", "n_out"),
    "kv_step_seconds": ("param_bytes", "kv_bytes_per_token", "context_len", "bandwidth"),
    "kv_decode_time": ("n_tokens", "prompt_len", "param_bytes", "kv_bytes_per_token", "bandwidth"),
    "batch_throughput": ("param_bytes", "bandwidth", "batch"),
}


#: The notebook's worked examples (the docstrings'), whose numbers a learner may write in place of an argument.
PAGE: dict[str, tuple[dict[str, Any], ...]] = {
    "decode_step_seconds": ({"param_bytes": 14e9, "bandwidth": 1e12},),
    "tokens_per_second": ({"param_bytes": 14e9, "bandwidth": 1e12},),
    "decode_time": ({"n_tokens": 100, "param_bytes": 14e9, "bandwidth": 1e12},),
    "request_time": ({"ttft": 0.20, "itl": 0.05, "n_out": 5},),
    "kv_step_seconds": ({"param_bytes": 14e9, "kv_bytes_per_token": 5e5, "context_len": 1000, "bandwidth": 1e12},),
    "kv_decode_time": (
        {"n_tokens": 3, "prompt_len": 1000, "param_bytes": 14e9, "kv_bytes_per_token": 5e5, "bandwidth": 1e12},
    ),
}


# -- generate -----------------------------------------------------------------------------------------------------

def token_for(seq: Sequence[int]) -> int:
    """The recording next_token's answer: a deterministic function of the whole sequence and its order."""
    acc = len(seq)
    for i, t in enumerate(seq):
        acc = (acc * 31 + t * (i + 7)) % 1_000_003
    return acc % VOCAB


class _BadCall:
    """What the recorder keeps when next_token is called with something other than one list of ints.

    Only its short rendering is kept, never the arguments, so a learner cannot make the grader hold much."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        parts = [show(a) for a in args[:4]] + [f"{k}={show(v)}" for k, v in list(kwargs.items())[:4]]
        self.text = f"next_token({', '.join(parts)})"

    def __repr__(self) -> str:
        return self.text


class NextToken:
    """A recording next_token: returns token_for(sequence) and keeps a copy of every sequence it saw.

    It never raises for a wrong call, so a wrong call comes back to the test as a record to explain rather
    than as an error inside the learner's code; only past ``STAND_IN_MAX_TOKENS`` tokens (and calls) in all,
    far beyond any test, it refuses, so that what it keeps stays small.
    """

    __name__ = "next_token"

    def __init__(self) -> None:
        self.calls: list[Any] = []
        self._kept = 0

    def __call__(self, *args: Any, **kwargs: Any) -> int:
        self._kept += 1 + sum(len(a) for a in (*args, *kwargs.values()) if isinstance(a, (list, tuple)))
        if self._kept > STAND_IN_MAX_TOKENS:
            raise ValueError(
                f"next_token was called {len(self.calls) + 1} times, with more than {STAND_IN_MAX_TOKENS} tokens in all, "
                "in one test: a test needs far fewer; call it once per new token"
            )
        if len(args) == 1 and not kwargs:
            seq = args[0]
        elif not args and len(kwargs) == 1:
            seq = next(iter(kwargs.values()))
        else:
            self.calls.append(_BadCall(args, kwargs))
            return 0
        ids = _token_ids(seq)
        if ids is None:
            self.calls.append(_BadCall(args, kwargs))
            return 0
        self.calls.append(ids)
        return token_for(ids)


def _token_ids(seq: Any) -> list[int] | None:
    """The sequence as a list of ints, or None if it is not one. Tuples and numpy ints count (in self-check they
    reach next_token as they are; in grading the channel has already made them lists of ints)."""
    if not isinstance(seq, (list, tuple)):
        return None
    ids = []
    for t in seq:
        if isinstance(t, bool):
            return None
        try:
            ids.append(operator.index(t))
        except TypeError:
            return None
    return ids


def simulate(prompt: Sequence[int], n: int) -> tuple[list[int], list[list[int]]]:
    """What generate must return for the recording next_token, and the sequences it must pass, in order."""
    seq = list(prompt)
    calls = []
    for _ in range(n):
        calls.append(list(seq))
        seq.append(token_for(seq))
    return seq, calls


def expect_generated(got: Call, prompt: Sequence[int], n: int, rec: NextToken) -> None:
    """Check generate's result and how it called next_token; explain the first thing that is wrong."""
    prompt = list(prompt)
    expected, expected_calls = simulate(prompt, n)
    new = expected[len(prompt):]
    value, calls = got.value, rec.calls
    if got.modified(1, "prompt"):
        raise Mismatch(
            f"{got.text} changed the caller's prompt list in place. Copy it first (sequence = list(prompt)) "
            "and append to the copy: the caller may still need its prompt."
        )
    same_as = getattr(got, "same_as", None)
    if same_as and same_as.startswith("argument"):
        raise Mismatch(
            f"{got.text} returned the caller's own prompt list, not a new list"
            f"{' (with n = 0 nothing is appended, but the result must still be a copy)' if n == 0 else ''}. "
            "Whoever appends to the result would change their prompt: start from `sequence = list(prompt)` and "
            "return that."
        )
    if same_as:
        raise Mismatch(
            f"{got.text} returned the same list object as an earlier call of generate, so one call's result changes "
            "when another call runs. Build a new list inside the function on every call (a list defined outside "
            "the function, or a default argument such as `out=[]`, is shared between calls)."
        )
    if calls == expected_calls and type(value) is list and value == expected:
        if all(type(t) is int for t in value):
            return
        odd = next(t for t in value if type(t) is not int)
        raise Mismatch(
            f"{got.text} returned {show(value)}: it holds {kind(odd)}, {show(odd)}, where every item must be an int "
            "token id. Append the prompt's ids and what next_token returns unchanged."
        )
    if calls != expected_calls:
        why = _diagnose_calls(prompt, n, calls, expected_calls)
        if type(value) is list and value == expected:
            head = f"{got.text} returned the right list, but next_token was not called as expected:"
        else:
            head = (
                f"{got.text} returned {show(value)}, which is not right"
                + withheld(f" (expected {show(expected)}: the prompt followed by the {_tokens(n)} next_token gives)")
                + "."
            )
        raise Mismatch(f"{head} {why}")
    raise Mismatch(
        f"{got.text} returned {show(value)}, which is not right"
        + withheld(f" (expected {show(expected)}: the prompt followed by the {_tokens(n)} next_token gives)")
        + f". {_diagnose_result(value, prompt, n, expected, new)}"
    )


def _seen(calls: list[Any]) -> str:
    return show([c if isinstance(c, list) else repr(c) for c in calls])


def _diagnose_calls(prompt: list[int], n: int, calls: list[Any], expected_calls: list[list[int]]) -> str:
    bad = next((c for c in calls if isinstance(c, _BadCall)), None)
    if bad is not None:
        return f"It called {bad!r}; next_token takes one argument, the list of token ids so far (prompt + new tokens)."
    if n == 0:
        return f"With n=0 no token is generated, so next_token must not be called; it was called {len(calls)} time{'' if len(calls) == 1 else 's'}."
    if not calls:
        return "next_token was never called: each new token must come from next_token(sequence_so_far)."
    if n >= 2 and len(calls) >= 2 and all(c == prompt for c in calls):
        return (
            f"next_token was called on the prompt alone every time ({show(prompt)}): the sequence never grew. "
            "Append each new token to the sequence and pass the whole sequence so far to the next call."
        )
    returned = [token_for(c) for c in calls]  # what the recorder answered, call by call
    if prompt and len(calls) >= 2 and all(c == returned[:k] for k, c in enumerate(calls)):
        return (
            "next_token saw only the generated tokens, without the prompt (its first call got []). Pass the whole "
            "sequence so far: the prompt followed by the tokens generated so far."
        )
    if len(prompt) != 1 and len(calls) >= 2 and all(len(c) == 1 for c in calls):
        return (
            f"next_token was called with a single token each time ({_seen(calls)}): the model needs the whole "
            "sequence so far, not only the last token."
        )
    grew = {len(b) - len(a) for a, b in zip(calls, calls[1:]) if isinstance(a, list) and isinstance(b, list)}
    if len(grew) == 1 and min(grew) > 1 and calls[:1] == expected_calls[:1]:
        return (
            f"The sequence grew by more than one token between calls to next_token (it skips lengths; sequences seen: "
            f"{_seen(calls)}): append exactly one token, the one next_token returned, per call."
        )
    for k in (2, 3):
        if calls == [c for c in expected_calls for _ in range(k)]:
            return (
                f"next_token was called {len(calls)} times for n={n}: {'twice' if k == 2 else 'three times'} per new "
                "token, on the same sequence. Each call runs the whole model: call it once per step, keep its result "
                "in a variable, and append that."
            )
    for i, (c, e) in enumerate(zip(calls, expected_calls)):
        if c != e:
            if i == 0:
                return _diagnose_first_call(prompt, c)
            return (
                f"Call number {i + 1} to next_token got {show(c)}"
                + withheld(f"; expected {show(e)}")
                + f": it must get the prompt followed by the {_tokens(i)} generated so far. Sequences seen: {_seen(calls)}."
            )
    k = len(calls)
    if prompt and 0 <= n - len(prompt) == k and calls == expected_calls[:k]:
        return (
            f"next_token was called {_times(k)} for n={n}, so the result has n tokens in all: n is the number of new "
            "tokens to add after the prompt, not the total length."
        )
    if k < n and calls == expected_calls[:k] and k <= 1:
        return (
            f"next_token was called {_times(k)} for n={n}: every new token needs its own call on the sequence so far, "
            "since each prediction depends on the token before it (it cannot be computed once and repeated)."
        )
    if k == n + 1:
        return f"next_token was called {k} times for n={n}: one call too many (check the loop's range)."
    if k == n - 1:
        return f"next_token was called {k} times for n={n}: one call too few (check the loop's range)."
    if k == 2 * n:
        return (
            f"next_token was called {k} times for n={n}: twice per new token. Call it once per step and keep its "
            "result in a variable."
        )
    return f"next_token was called {k} times for n={n}; expected exactly once per new token."


def _times(k: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(k, f"{k} times")


def _tokens(k: int) -> str:
    return f"{k} token{'' if k == 1 else 's'}"


def _diagnose_first_call(prompt: list[int], first: list[int]) -> str:
    head = f"Its first call to next_token got {show(first)}; the first new token must be predicted from the prompt, {show(prompt)}."
    if prompt and first == []:
        return f"{head} Start the sequence from (a copy of) the prompt, not from an empty list."
    if len(prompt) > 1 and first == prompt[-1:]:
        return f"{head} Pass the whole sequence so far, not only its last token."
    if len(first) > len(prompt) and first[len(first) - len(prompt):] == prompt:
        return (
            f"{head} Tokens from an earlier call were still there: generate must keep no state between calls "
            "(a default argument such as `out=[]`, or a list defined outside the function, lives on)."
        )
    if len(first) > len(prompt) and first[: len(prompt)] == prompt:
        return f"{head} Something was appended before the first call: call next_token first, then append its token."
    return f"{head} Pass the prompt itself (unchanged) on the first call."


def _diagnose_result(value: Any, prompt: list[int], n: int, expected: list[int], new: list[int]) -> str:
    if value is None:
        return "It returned None: did you forget the `return` statement?"
    if type(value) is not list:
        return f"It returned {kind(value)}; generate must return a list of token ids (a new list)."
    if prompt and n and value == new:
        return "It returned only the new tokens: return the prompt followed by the new tokens."
    if prompt and not n and value == []:
        return (
            "With n = 0 it returned an empty list, as if it returned only the new tokens: generate returns the "
            "prompt followed by the new tokens, so with n = 0 that is a copy of the prompt."
        )
    if n and value == expected + new:
        return (
            "The new tokens appear twice. Your loop appended to the caller's prompt list itself (`seq = prompt` "
            "makes no copy) and the new tokens were then added again; start from a copy, `seq = list(prompt)`, and "
            "leave the prompt unchanged."
        )
    if n and value == prompt:
        return "It returned the prompt unchanged: append each token next_token gives to the sequence."
    if len(value) == len(expected) + 1:
        return f"That is one token too many: generate n={n} new tokens after the prompt."
    if len(value) == len(expected) - 1:
        return f"That is one token too few: generate n={n} new tokens after the prompt."
    if len(value) != len(expected):
        return f"It has {len(value)} tokens; expected len(prompt) + n = {len(expected)}."
    if value[: len(prompt)] != prompt:
        return "It does not start with the prompt, unchanged."
    return "The new tokens must be exactly what next_token returned, in the order it returned them."


# -- call_order_is_sequential ------------------------------------------------------------------------------------

class GenerateStandIn:
    """A trusted generate, right or wrong, that records the lengths it passed to the learner's wrapper."""

    def __init__(self, plan: Callable[[int, int], list[int]], description: str, base: Callable[..., Any] | None = None) -> None:
        self.plan, self.description, self.base = plan, description, base
        self.lengths: list[int] = []
        self.handed_back: list[tuple[list[int], Any]] = []
        """Each sequence passed to the learner's wrapper, with what the wrapper returned for it."""
        self.__name__ = "generate"

    def __call__(self, next_token: Callable[[list[int]], Any], prompt: list[int], n: int) -> list[int]:
        # Whatever the learner hands it (a list, a tuple, a string: anything with a length), the trusted side
        # makes at most STAND_IN_MAX_TOKENS tokens; what has no length, or an n that is not a plain int, is
        # refused too, since the loop below would run on it in the grading process.
        size = len(prompt) if hasattr(prompt, "__len__") else None
        if size is None or type(n) is not int:
            got = f"{type(prompt).__name__} and {type(n).__name__}"
            raise TypeError(f"the grader's generate takes a list of ints and an int n (got {got})")
        if size + n > STAND_IN_MAX_TOKENS:
            raise ValueError(
                f"the grader's generate makes at most {STAND_IN_MAX_TOKENS} tokens, prompt included (got a prompt "
                f"of {len(prompt)} and n={n}); call it with the prompt and n you were given"
            )
        if self.base is not None:  # the reference generate, watched
            def watched(seq: list[int]) -> Any:
                self.lengths.append(len(seq))
                token = next_token(seq)
                self.handed_back.append((list(seq), token))
                return token

            return self.base(watched, prompt, n)
        full = _continued(prompt, n + 1)  # a long enough sequence to cut the planned lengths from
        for length in self.plan(len(prompt), n):
            self.lengths.append(length)
            self.handed_back.append((full[:length], next_token(full[:length])))  # the learner's wrapper
        return full[: len(prompt) + n]


def _skip_one(p: int, n: int) -> list[int]:
    """Right start and count, but one length skipped halfway (lengths p, ..., then two tokens longer)."""
    return [p + k + (1 if n >= 2 and k >= n // 2 else 0) for k in range(n)]


def _continued(prompt: list[int], count: int) -> list[int]:
    """``prompt`` followed by ``count`` tokens, each token_for(the sequence so far), in time linear in the result.

    token_for's sum is carried from one length to the next instead of recomputed (which is quadratic)."""
    modulus = 1_000_003
    seq = list(prompt)
    acc, scale = 0, 1  # acc = token_for's sum without its len(seq) term; scale = 31 ** len(seq)
    for i, t in enumerate(seq):
        acc, scale = (acc * 31 + t * (i + 7)) % modulus, scale * 31 % modulus
    for _ in range(count):
        token = (len(seq) * scale + acc) % modulus % VOCAB
        acc, scale = (acc * 31 + token * (len(seq) + 7)) % modulus, scale * 31 % modulus
        seq.append(token)
    return seq


def wrong_generates() -> dict[str, GenerateStandIn]:
    """Generates that break the one-token-at-a-time order, each as a fresh recording stand-in.

    A plan gives the lengths of the sequences it passes, from (len(prompt), n); for some prompts and n a plan
    coincides with the right order (see :func:`expected_verdict`).
    """
    return {
        "prompt_only": GenerateStandIn(
            lambda p, n: [p] * n,
            "calls next_token on the prompt alone every time (the sequence never grows)",
        ),
        "out_of_order": GenerateStandIn(
            lambda p, n: [p + k for k in reversed(range(n))],
            "calls next_token with the right lengths but in reverse order",
        ),
        "too_few": GenerateStandIn(
            lambda p, n: [p + k for k in range(n - 1)],
            "calls next_token once too few",
        ),
        "too_many": GenerateStandIn(
            lambda p, n: [p + k for k in range(n + 1)],
            "calls next_token once too many",
        ),
        "starts_late": GenerateStandIn(
            lambda p, n: [p + 1 + k for k in range(n)],
            "starts from the prompt plus one token, so every call is one token longer than it should be",
        ),
        "twice_per_token": GenerateStandIn(
            lambda p, n: [p + k for k in range(n) for _ in (0, 1)],
            "calls next_token twice for every new token",
        ),
        "skips_a_length": GenerateStandIn(
            _skip_one,
            "skips one length halfway (the right first length and number of calls, but one step two tokens longer)",
        ),
        "new_tokens_only": GenerateStandIn(
            lambda p, n: list(range(n)),
            "passes only the tokens generated so far, without the prompt",
        ),
        "last_token_only": GenerateStandIn(
            lambda p, n: [min(1, p + k) for k in range(n)],
            "calls next_token on the last token only",
        ),
        "warm_up": GenerateStandIn(
            lambda p, n: [p] + [p + k for k in range(n)],
            "calls next_token once on the prompt before its loop, then once per token",
        ),
        "precomputed": GenerateStandIn(
            lambda p, n: [p] if n else [],
            "calls next_token once and repeats its token n times",
        ),
        "drops_last": GenerateStandIn(
            lambda p, n: [max(0, p + k - 1) for k in range(n)],
            "passes the sequence without its last token every time",
        ),
    }


def expected_verdict(stand_in: GenerateStandIn, prompt_len: int, n: int) -> bool:
    """Whether a stand-in's plan happens to be the sequential order for this prompt length and n."""
    if stand_in.base is not None:
        return True
    return list(stand_in.plan(prompt_len, n)) == sequential_lengths(prompt_len, n)


# -- what a wrong call_order_is_sequential checks instead ------------------------------------------------------

#: (len(prompt), n, the lengths a stand-in passes): right and wrong orders that tell the usual wrong checks apart.
PANEL: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (2, 3, (2, 3, 4)), (2, 3, (3, 4, 5)), (2, 3, (2, 2, 3, 4)), (2, 3, (4, 3, 2)), (2, 3, (2, 4, 5)),
    (2, 3, (2, 3, 5)), (2, 3, (2, 2, 2)), (2, 3, (4, 4, 4)), (2, 3, (2, 4)), (2, 3, (2, 3)),
    (2, 3, (2, 3, 4, 5)), (1, 3, (2, 3, 4)), (3, 2, (3, 4, 5)), (2, 3, (0, 1, 2)), (2, 0, ()), (2, 1, (2,)),
    (2, 1, (3,)), (2, 0, (2,)),
)


def _right(lengths: list[int], p: int, n: int) -> bool:
    return lengths == sequential_lengths(p, n)


def _steps(lengths: list[int]) -> list[int]:
    return [b - a for a, b in zip(lengths, lengths[1:])]


#: The usual wrong checks: (what it computes from the recorded lengths, what to tell the learner).
WRONG_CHECKS: tuple[tuple[Callable[[list[int], int, int], bool], str], ...] = (
    (lambda L, p, n: True,
     "It always returns True, whatever generate did: a check that never records the lengths through a wrapper "
     "(or looks only at generate's result) cannot tell a wrong call order from a right one."),
    (lambda L, p, n: False,
     "It returns False for every generate, even a correct one: nothing it recorded ever matched."),
    (lambda L, p, n: n == 0,
     "It recorded nothing (True only when n = 0, with no calls to record): pass your wrapper, not next_token "
     "itself, to generate, and record len(sequence) inside the wrapper."),
    (lambda L, p, n: len(L) == n,
     "It checks only the number of calls (the count), not which lengths were passed or in which order."),
    (lambda L, p, n: len(set(L)) == len(L) == n,
     "It checks only how many distinct lengths there were, not which lengths or in which order."),
    (lambda L, p, n: sorted(set(L)) == sequential_lengths(p, n),
     "It compares the distinct lengths (a set, or sorted): repeats and order matter, so compare the recorded "
     "list itself."),
    (lambda L, p, n: L[0] == p if L else n == 0,
     "It checks only the first length: every later call must be one token longer than the one before, too."),
    (lambda L, p, n: L[-1] == p + n - 1 if L else n == 0,
     "It checks only the last length: the earlier calls, and how many there were, matter too."),
    (lambda L, p, n: all(d == 1 for d in _steps(L)),
     "It checks only that each length is one more than the one before, not where the lengths start or how "
     "many calls there were."),
    (lambda L, p, n: all(d > 0 for d in _steps(L)),
     "It checks only that the lengths increase: a skipped length, a wrong start or a wrong count gets through."),
    (lambda L, p, n: len(L) == n and (not L or L[0] == p),
     "It checks where the lengths start and how many there are, but not every length: a skipped or repeated "
     "length gets through."),
    (lambda L, p, n: (L[0] == p and L[-1] == p + n - 1) if L else n == 0,
     "It checks only the first and the last length: a skipped, repeated or extra length in between gets through."),
    (lambda L, p, n: len(L) == n and all(d > 0 for d in _steps(L)) and (not L or L[0] == p),
     "It checks the start, the count and that the lengths increase, but not that each is exactly one more: a "
     "skipped length gets through."),
    (lambda L, p, n: L == list(range(p + 1, p + n + 1)),
     "Its expected lengths are off by one: the first call sees the prompt itself, so the first length is "
     "len(prompt), not len(prompt) + 1."),
    (lambda L, p, n: L == list(range(p, p + n + 1)),
     "Its expected list has one length too many (off by one at the end): n new tokens take n calls, the last "
     "at len(prompt) + n - 1."),
    (lambda L, p, n: L == list(range(p, p + n - 1)),
     "Its expected list has one length too few (off by one at the end): n new tokens take n calls."),
    (lambda L, p, n: L == list(range(n)),
     "It expects the lengths to start at 0: the first call sees the whole prompt, len(prompt) tokens."),
    (lambda L, p, n: [p] * len(L) == sequential_lengths(p, n),
     "Its verdicts are those of a wrapper that records the same length at every call, the length of the prompt: "
     "record len(sequence), the length of the sequence the wrapper is handed at that call, which grows."),
    (lambda L, p, n: True if n <= 1 else _right(L, p, n),
     "It returns True for small n (0 or 1) without checking: even then generate may call next_token wrongly, "
     "so run it and compare for every n."),
    (lambda L, p, n: False if n == 0 else _right(L, p, n),
     "With n = 0 there are no calls: the recorded list is empty, and so is the expected one, so the answer is True."),
    (lambda L, p, n: True if n == 0 else _right(L, p, n),
     "With n = 0 it returns True without checking: a generate may call next_token even when n = 0."),
)


def wrong_check(learner: Any) -> str:
    """What the learner's call_order_is_sequential checks instead, from its verdicts on :data:`PANEL`, or ''.

    Run only after a wrong verdict, and once per notebook (``learner.once``): the panel is ~150 calls through
    the channel, and its answer depends only on the learner's code.
    """
    return learner.once("call_order_is_sequential: wrong check", lambda: _wrong_check(learner))


def _wrong_check(learner: Any) -> str:
    """One call per panel entry, each with a stand-in generate passing fixed lengths."""
    verdicts = []
    for p, n, lengths in PANEL:
        stand_in = GenerateStandIn(lambda _p, _n, fixed=lengths: list(fixed), "passes fixed lengths")
        try:
            got = learner.call("call_order_is_sequential", NextToken(), list(range(10, 10 + p)), n, stand_ins={"generate": stand_in})
        except LearnerRaised:
            return ""
        verdicts.append(got.value)
    for check, sentence in WRONG_CHECKS:
        if all(v is check(list(lengths), p, n) for v, (p, n, lengths) in zip(verdicts, PANEL)):
            return sentence
    return ""


def wrapper_slip(stand_in: GenerateStandIn) -> str:
    """How the learner's wrapper failed to hand next_token's token back to generate, or ''."""
    for seq, token in stand_in.handed_back:
        if isinstance(token, bool) or not isinstance(token, int) or token != token_for(seq):
            return (
                f"your wrapper, called with a sequence of {len(seq)} tokens, returned {show(token)} instead of the token "
                "next_token gave. The wrapper must hand the token back (return next_token(sequence)): generate "
                "appends what it returns."
            )
    return ""


def sequential_lengths(prompt_len: int, n: int) -> list[int]:
    return list(range(prompt_len, prompt_len + n))


decode = lesson_fixture(
    "decode",
    decode_step_seconds=decode_step_seconds, tokens_per_second=tokens_per_second, decode_time=decode_time,
    request_time=request_time, kv_step_seconds=kv_step_seconds, kv_decode_time=kv_decode_time,
    step_mistakes=step_mistakes, tps_mistakes=tps_mistakes, decode_time_mistakes=decode_time_mistakes,
    request_time_mistakes=request_time_mistakes, kv_step_mistakes=kv_step_mistakes,
    kv_decode_mistakes=kv_decode_mistakes, explain_number=explain_number, expect_batch=expect_batch, call_kw=call_kw,
    NextToken=NextToken, token_for=token_for, simulate=simulate, expect_generated=expect_generated,
    GenerateStandIn=GenerateStandIn, wrong_generates=wrong_generates, expected_verdict=expected_verdict,
    wrapper_slip=wrapper_slip, wrong_check=wrong_check, check_call=check_call, kind=kind,
    batch_throughput=batch_throughput, sequential_lengths=sequential_lengths,
)
