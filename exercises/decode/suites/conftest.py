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
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import pytest

from grader.config import REL_TOL
from grader.testing import Call, LearnerRaised, Mismatch, diagnose_number, kind_of, show

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
        ("n_out * ttft", "only the first token waits the ttft; the others come itl apart.", n_out * ttft),
        ("(ttft + itl) * (n_out - 1)", "the ttft is paid once, not once per token.", (ttft + itl) * (n_out - 1)),
        ("ttft + (n_out - 1) * itl in milliseconds", "the time should be in seconds.", right * 1e3),
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
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _near(a: float, b: float, rel: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def explain_number(value: Any, expected: float, mistakes: Sequence[Mistake], match_rel: float = 1e-6) -> str:
    """Name the mistake behind a wrong number: a known one, a rounded answer, a unit slip or a reciprocal."""
    number = _as_number(value)
    if number is None or not math.isfinite(number):
        return diagnose_number(value, expected, {})
    matches = [
        (formula, why)
        for formula, why, wrong in mistakes
        if math.isfinite(wrong) and not _near(wrong, expected, 1e-9) and _near(number, wrong, match_rel)
    ]
    if matches:
        formula, why = matches[0]
        text = f"That is what {formula} gives: {why}"
        for formula, why in matches[1:2]:
            text += f" (For these inputs {formula} gives the same number: {why})"
        return text
    rounded = _rounded(number, expected)
    if rounded:
        return rounded
    return diagnose_number(number, expected, {})


def _rounded(number: float, expected: float) -> str:
    if not expected or _near(number, expected):
        return ""
    for digits in range(0, 7):
        scale = 10.0**digits
        for cut in (round(expected, digits), math.trunc(expected * scale) / scale):
            if _near(number, cut, 1e-12):
                places = "a whole number" if digits == 0 else f"{digits} decimal place{'s' if digits > 1 else ''}"
                return (
                    f"That is the right value cut to {places}: return the full value (no int(), round() or "
                    "formatting); the grader allows for floating-point error."
                )
    return ""


def expect_seconds(got: Call, expected: float, mistakes: Sequence[Mistake], unit: str = "s") -> None:
    """Pass if got.value is within 1e-6 relative of expected; otherwise say what came back and why it is likely wrong."""
    number = _as_number(got.value)
    if number is not None and _near(number, expected, REL_TOL):
        return
    text = f"{got.text} returned {show(got.value)}; expected {expected:.6g} {unit} (within {REL_TOL:g} relative)."
    why = explain_number(got.value, expected, mistakes)
    raise Mismatch(f"{text} {why}" if why else text)


def expect_value(
    name: str,
    value: Any,
    expected: float,
    *,
    meaning: str,
    mistakes: Sequence[Mistake] = (),
    rel: float = 1e-6,
    abs_tol: float = 0.0,
    hint: str = "",
) -> None:
    """Check a numeric answer variable; ``meaning`` says in words what the number is."""
    number = _as_number(value)
    if number is not None and math.isfinite(number):
        if abs_tol and abs(number - expected) <= abs_tol:
            return
        if not abs_tol and _near(number, expected, rel):
            return
    within = f"within {abs_tol:g}" if abs_tol else f"within {rel:g} relative"
    text = f"`{name}` is {show(value)}; expected {expected:.6g} ({meaning}; {within})."
    if isinstance(value, str):
        raise Mismatch(f"{text} It is a string: store the number itself, e.g. `12.5`, not `\"12.5 GB\"`.")
    # Learners round the values they type, so known mistakes are recognised within 0.2 %.
    why = explain_number(value, expected, mistakes, match_rel=2e-3)
    if hint and (not why or why.startswith("That is the right value cut")):
        why = hint
    raise Mismatch(f"{text} {why}" if why else text)


def expect_choice(name: str, value: Any, correct: Any, hint: str) -> None:
    """Check a multiple-choice answer: one letter, compared case-insensitively after strip.

    The message does not print the right letter (learners may run the hidden suite while working); it says
    what was found, what form is expected and which idea to revisit.
    """
    if not isinstance(correct, str) or not correct.strip():
        raise RuntimeError(f"the solution notebook gives no letter for {name!r} (got {correct!r})")
    if not isinstance(value, str):
        raise Mismatch(
            f"`{name}` is {show(value)} (a {type(value).__name__}); expected the letter of one option as a string, "
            f"e.g. `{name} = \"A\"`."
        )
    answer = value.strip()
    if answer.upper() == correct.strip().upper():
        return
    if len(answer) != 1 or not answer.isalpha():
        raise Mismatch(
            f"`{name}` is {show(value)}; expected just the letter of one option, e.g. `{name} = \"A\"`, "
            "without the option's text or punctuation."
        )
    raise Mismatch(f"`{name}` is {show(value)}; expected the letter of the correct option, and {answer!r} is not it. {hint}")


# -- keyword calls -----------------------------------------------------------------------------------------------

def call_kw(learner: Any, name: str, params: Sequence[str], **kwargs: Any) -> Call:
    """Call with the documented parameter names as keywords; say so plainly when a name was changed."""
    try:
        return learner.call(name, **kwargs)
    except LearnerRaised as err:
        text = str(err)
        if "TypeError" in text and ("keyword argument" in text or "missing" in text):
            raise LearnerRaised(
                f"{text}. Graders call `{name}` with the parameter names the notebook gives it "
                f"({', '.join(params)}); keep those names."
            ) from None
        raise


# -- batch_throughput ------------------------------------------------------------------------------------------

def expect_batch(got: Call, param_bytes: float, bandwidth: float, batch: int) -> None:
    per_stream = bandwidth / param_bytes
    aggregate = batch * per_stream
    value = got.value
    head = (
        f"{got.text} returned {show(value)}; expected (aggregate, per_stream) = "
        f"({aggregate:.6g}, {per_stream:.6g}) tokens per second."
    )
    if value is None:
        raise Mismatch(head + " It returned None: did you forget the `return` statement?")
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        what = f"{kind_of(value)} of {len(value)} items" if isinstance(value, (list, tuple)) else kind_of(value)
        raise Mismatch(head + f" It returned {what}: return the pair `aggregate, per_stream`, in that order.")
    numbers = [_as_number(v) for v in value]
    if any(n is None for n in numbers):
        raise Mismatch(head + " Both items must be numbers.")
    agg, per = numbers

    def near(a: float, b: float) -> bool:
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-300)

    if near(agg, aggregate) and near(per, per_stream):
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
    parts = []
    for label, v, e in (("aggregate", agg, aggregate), ("per_stream", per, per_stream)):
        if not near(v, e):
            why = explain_number(v, e, [("param_bytes / bandwidth", "that is the seconds per step, not tokens per second.", param_bytes / bandwidth)])
            parts.append(f"The {label} is {show(v)}, expected {e:.6g}." + (f" {why}" if why else ""))
    raise Mismatch(head + " " + " ".join(parts))


# -- generate -----------------------------------------------------------------------------------------------------

def token_for(seq: Sequence[int]) -> int:
    """The recording next_token's answer: a deterministic function of the whole sequence and its order."""
    acc = len(seq)
    for i, t in enumerate(seq):
        acc = (acc * 31 + t * (i + 7)) % 1_000_003
    return acc % VOCAB


class _BadCall:
    """What the recorder keeps when next_token is called with something other than one list of ints."""

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args, self.kwargs = args, kwargs

    def __repr__(self) -> str:
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"next_token({', '.join(parts)})"


class NextToken:
    """A recording next_token: returns token_for(sequence) and keeps a copy of every sequence it saw.

    It never raises, so a wrong call comes back to the test as a record to explain rather than as an error
    inside the learner's code.
    """

    __name__ = "next_token"

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def __call__(self, *args: Any, **kwargs: Any) -> int:
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
    if calls == expected_calls and type(value) is list and value == expected:
        return
    if calls != expected_calls:
        why = _diagnose_calls(prompt, n, calls, expected_calls)
        if type(value) is list and value == expected:
            head = f"{got.text} returned the right list, but next_token was not called as expected:"
        else:
            head = (
                f"{got.text} returned {show(value)}; expected {show(expected)} "
                f"(the prompt followed by the {_tokens(n)} next_token gives)."
            )
        raise Mismatch(f"{head} {why}")
    raise Mismatch(
        f"{got.text} returned {show(value)}; expected {show(expected)} (the prompt followed by the {_tokens(n)} "
        f"next_token gives). {_diagnose_result(value, prompt, n, expected, new)}"
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
    for i, (c, e) in enumerate(zip(calls, expected_calls)):
        if c != e:
            if i == 0:
                return _diagnose_first_call(prompt, c)
            return (
                f"Call number {i + 1} to next_token got {show(c)}; expected {show(e)}: the prompt followed by the "
                f"{_tokens(i)} generated so far. Sequences seen: {_seen(calls)}."
            )
    k = len(calls)
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
        return f"It returned a {type(value).__name__}; expected a list of token ids."
    if prompt and n and value == new:
        return "It returned only the new tokens: return the prompt followed by the new tokens."
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
        self.__name__ = "generate"

    def __call__(self, next_token: Callable[[list[int]], Any], prompt: list[int], n: int) -> list[int]:
        if self.base is not None:  # the reference generate, watched
            def watched(seq: list[int]) -> Any:
                self.lengths.append(len(seq))
                return next_token(seq)

            return self.base(watched, prompt, n)
        full = list(prompt)
        for _ in range(n + 1):  # a long enough sequence to cut the planned lengths from
            full.append(token_for(full))
        for length in self.plan(len(prompt), n):
            self.lengths.append(length)
            next_token(full[:length])  # the learner's wrapper; what it returns does not matter here
        return full[: len(prompt) + n]


def wrong_generates() -> dict[str, GenerateStandIn]:
    """Generates that break the one-token-at-a-time order, each as a fresh recording stand-in."""
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
    }


def sequential_lengths(prompt_len: int, n: int) -> list[int]:
    return list(range(prompt_len, prompt_len + n))


@pytest.fixture(scope="session")
def decode() -> SimpleNamespace:
    """The lesson's spec formulas, mistake catalogues, recorders and checks, for the test modules."""
    return SimpleNamespace(
        decode_step_seconds=decode_step_seconds,
        tokens_per_second=tokens_per_second,
        decode_time=decode_time,
        request_time=request_time,
        kv_step_seconds=kv_step_seconds,
        kv_decode_time=kv_decode_time,
        step_mistakes=step_mistakes,
        tps_mistakes=tps_mistakes,
        decode_time_mistakes=decode_time_mistakes,
        request_time_mistakes=request_time_mistakes,
        kv_step_mistakes=kv_step_mistakes,
        kv_decode_mistakes=kv_decode_mistakes,
        expect_seconds=expect_seconds,
        explain_number=explain_number,
        expect_value=expect_value,
        expect_choice=expect_choice,
        expect_batch=expect_batch,
        call_kw=call_kw,
        NextToken=NextToken,
        token_for=token_for,
        simulate=simulate,
        expect_generated=expect_generated,
        GenerateStandIn=GenerateStandIn,
        wrong_generates=wrong_generates,
        sequential_lengths=sequential_lengths,
    )
