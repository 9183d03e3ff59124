"""The Decode suites catch every class of wrong answer issue 11 names, and keep full marks for right answers
written in other styles. Each answer is written as a learner would write it and appended as a last cell to
the solution notebook; all are graded in one batch through the normal path (grader.variants).

A wrong answer must lose points on its question (and only there), and its feedback must name the
misconception; a right answer must keep full marks everywhere.
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any

import pytest

from grader.lessons import load_lesson
from grader.variants import Variant, grade_variants
from tests.conftest import REPO

pytestmark = pytest.mark.slow


def _recorded(verdict: str, first: str = "") -> str:
    """A call_order_is_sequential that records the lengths the usual way and returns ``verdict``."""
    return f"""
def call_order_is_sequential(next_token, prompt, n):
{first}    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)
    generate(wrapper, prompt, n)
    return {verdict}
"""


# name -> (question, the code of the last cell, a regex the question's feedback must match)
WRONG: dict[str, tuple[str, str, str]] = {
    # -- generate ------------------------------------------------------------------------------------------------
    "gen_twice_per_token": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        next_token(seq)              # peek first
        seq.append(next_token(seq))
    return seq
""",
        r"twice per new token",
    ),
    "gen_returns_prompt_when_n_is_0": (
        "generate",
        """
def generate(next_token, prompt, n):
    if n == 0:
        return prompt
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return seq
""",
        r"caller's own prompt list",
    ),
    "gen_shared_buffer": (
        "generate",
        """
_buffer = []
def generate(next_token, prompt, n):
    _buffer.clear()
    _buffer.extend(prompt)
    for _ in range(n):
        _buffer.append(next_token(list(_buffer)))
    return _buffer
""",
        r"same list object as an earlier call",
    ),
    "gen_default_argument": (
        "generate",
        """
def generate(next_token, prompt, n, out=[]):
    out.extend(prompt)
    for i in range(n):
        out.append(next_token(list(out)))
    return out
""",
        r"earlier call|shared between calls",
    ),
    "gen_returns_tuple": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return tuple(seq)
""",
        r"tuple",
    ),
    "gen_returns_generator": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return (t for t in seq)
""",
        r"generator",
    ),
    "gen_returns_numpy": (
        "generate",
        """
import numpy as np
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq))
    return np.array(seq)
""",
        r"numpy array",
    ),
    "gen_modifies_prompt": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = prompt
    for _ in range(n):
        seq.append(next_token(seq))
    return seq
""",
        r"changed the caller's prompt",
    ),
    "gen_last_token_only": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(next_token(seq[-1:]))
    return seq
""",
        r"single token|last token",
    ),
    "gen_returns_new_tokens": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq, new = list(prompt), []
    for _ in range(n):
        t = next_token(seq)
        seq.append(t)
        new.append(t)
    return new
""",
        r"only the new tokens",
    ),
    "gen_precomputed": (
        "generate",
        """
def generate(next_token, prompt, n):
    first = next_token(list(prompt))
    return list(prompt) + [first] * n
""",
        r"own call",
    ),
    "gen_float_tokens": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        seq.append(float(next_token(seq)))
    return seq
""",
        r"int",
    ),
    "gen_one_too_many": (
        "generate",
        """
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n + 1):
        seq.append(next_token(seq))
    return seq[:len(prompt) + n]
""",
        r"one call too many",
    ),
    # -- call_order_is_sequential ----------------------------------------------------------------------------------
    "order_always_true": (
        "call_order_is_sequential",
        """
def call_order_is_sequential(next_token, prompt, n):
    return True
""",
        r"expected False",
    ),
    "order_counts_only": ("call_order_is_sequential", _recorded("len(lengths) == n"), r"expected False"),
    "order_first_and_last": (
        "call_order_is_sequential",
        """
def call_order_is_sequential(next_token, prompt, n):
    seen = []
    def spy(seq):
        seen.append(len(seq))
        return next_token(seq)
    generate(spy, prompt, n)
    if n == 0:
        return seen == []
    return seen[0] == len(prompt) and seen[-1] == len(prompt) + n - 1
""",
        r"expected False",
    ),
    "order_skips_small_n": (
        "call_order_is_sequential",
        _recorded(
            "lengths == list(range(len(prompt), len(prompt) + n))",
            "    if n <= 1:\n        return True  # nothing to get wrong\n",
        ),
        r"expected False",
    ),
    "order_wrapper_drops_token": (
        "call_order_is_sequential",
        """
def call_order_is_sequential(next_token, prompt, n):
    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        next_token(seq)
    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
""",
        r"wrapper.*returned None",
    ),
    "order_wrapper_constant": (
        "call_order_is_sequential",
        """
def call_order_is_sequential(next_token, prompt, n):
    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        next_token(seq)
        return 0
    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
""",
        r"return next_token\(sequence\)",
    ),
    "order_set_compare": (
        "call_order_is_sequential",
        _recorded("sorted(set(lengths)) == list(range(len(prompt), len(prompt) + n))"),
        r"expected False",
    ),
    "order_steps_of_one": (
        "call_order_is_sequential",
        _recorded("all(b - a == 1 for a, b in zip(lengths, lengths[1:]))"),
        r"expected False",
    ),
    "order_sorted_and_count": (
        "call_order_is_sequential",
        _recorded("lengths == sorted(lengths) and len(lengths) == n and (n == 0 or lengths[0] == len(prompt))"),
        r"expected False",
    ),
    "order_own_loop": (
        "call_order_is_sequential",
        """
def call_order_is_sequential(next_token, prompt, n):
    seq, lengths = list(prompt), []
    for _ in range(n):
        lengths.append(len(seq))
        seq.append(next_token(seq))
    return lengths == list(range(len(prompt), len(prompt) + n))
""",
        r"expected False",
    ),
    "order_off_by_one": (
        "call_order_is_sequential",
        _recorded("lengths == list(range(len(prompt) + 1, len(prompt) + n + 1))"),
        r"expected True",
    ),
    # -- numbers -----------------------------------------------------------------------------------------------------
    "step_in_ms": (
        "decode_step_seconds",
        """
def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes / bandwidth * 1000
""",
        r"milliseconds",
    ),
    "step_hard_coded": (
        "decode_step_seconds",
        """
def decode_step_seconds(param_bytes, bandwidth):
    return 0.014
""",
        r"hard-coded",
    ),
    "step_in_bits": (
        "decode_step_seconds",
        """
def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes * 8 / bandwidth
""",
        r"bits instead of bytes",
    ),
    "tps_hard_coded": (
        "tokens_per_second",
        """
def tokens_per_second(param_bytes, bandwidth):
    return 71.4
""",
        r"hard-coded",
    ),
    "time_one_step_too_few": (
        "decode_time",
        """
def decode_time(n_tokens, param_bytes, bandwidth):
    return (n_tokens - 1) * decode_step_seconds(param_bytes, bandwidth)
""",
        r"one step too few",
    ),
    "time_twice": (
        "decode_time",
        """
def decode_time(n_tokens, param_bytes, bandwidth):
    return 2 * n_tokens * decode_step_seconds(param_bytes, bandwidth)
""",
        r"factor of 2",
    ),
    "request_one_too_many": (
        "request_time",
        """
def request_time(ttft, itl, n_out):
    return ttft + n_out * itl
""",
        r"a token too many",
    ),
    "request_hard_coded": (
        "request_time",
        """
def request_time(ttft, itl, n_out):
    return 0.40
""",
        r"hard-coded",
    ),
    "batch_list": (
        "batch_throughput",
        """
def batch_throughput(param_bytes, bandwidth, batch):
    tps = tokens_per_second(param_bytes, bandwidth)
    return [batch * tps, tps]
""",
        r"tuple",
    ),
    "batch_both_multiplied": (
        "batch_throughput",
        """
def batch_throughput(param_bytes, bandwidth, batch):
    tps = tokens_per_second(param_bytes, bandwidth)
    return (batch * tps, batch * tps)
""",
        r"multiplied by the batch",
    ),
    "kv_step_in_ms": (
        "kv_step_seconds",
        """
def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth * 1e3
""",
        r"milliseconds",
    ),
    "kv_decode_off_by_one": (
        "kv_decode_time",
        """
def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    return sum(kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k + 1, bandwidth) for k in range(n_tokens))
""",
        r"off by one",
    ),
    "gb_in_bits": ("gb_per_step", "gb_per_step = 104", r"bits instead of bytes"),
    "gb_two_bytes": ("gb_per_step", "gb_per_step = 26", r"1 byte per parameter"),
    "ms_in_seconds": ("ms_per_token", "ms_per_token = 0.00388", r"milliseconds"),
    "tps_whole_number": ("max_tokens_per_s", "max_tokens_per_s = 258", r"decimal"),
    "tps_as_string": ("max_tokens_per_s", 'max_tokens_per_s = "71.4"', r"string"),
    "choice_wrong": ("answer_sequential", 'answer_sequential = "B"', r"not the right option"),
}

# name -> the code of the last cell: right answers in other styles, which must keep full marks
RIGHT: dict[str, str] = {
    "gen_while_loop": """
def generate(next_token, prompt, n):
    tokens = prompt[:]
    produced = 0
    while produced < n:
        tokens = tokens + [next_token(tokens)]
        produced += 1
    return tokens
""",
    "gen_new_list_each_step": """
def generate(next_token, prompt, n):
    out = []
    for _ in range(n):
        out.append(next_token([*prompt, *out]))
    return [*prompt, *out]
""",
    "gen_recursive": """
def generate(next_token, prompt, n):
    if n == 0:
        return list(prompt)
    head = generate(next_token, prompt, n - 1)
    return head + [next_token(head)]
""",
    "order_class_recorder": """
class Recorder:
    def __init__(self, fn):
        self.fn, self.lengths = fn, []
    def __call__(self, seq):
        self.lengths.append(len(seq))
        return self.fn(seq)

def call_order_is_sequential(next_token, prompt, n):
    rec = Recorder(next_token)
    generate(rec, prompt, n)
    return rec.lengths == [len(prompt) + i for i in range(n)]
""",
    "order_enumerate": """
def call_order_is_sequential(next_token, prompt, n):
    seen = []
    def wrapped(sequence):
        seen.append(len(sequence))
        token = next_token(sequence)
        return token
    generate(wrapped, prompt, n)
    start = len(prompt)
    return len(seen) == n and all(length == start + i for i, length in enumerate(seen))
""",
    "numbers_other_styles": """
def decode_step_seconds(param_bytes, bandwidth):
    seconds = param_bytes / bandwidth
    return seconds

def tokens_per_second(param_bytes, bandwidth):
    return bandwidth / param_bytes

def decode_time(n_tokens, param_bytes, bandwidth):
    total = 0.0
    for _ in range(n_tokens):
        total += decode_step_seconds(param_bytes, bandwidth)
    return total

def request_time(ttft, itl, n_out):
    return ttft + max(n_out - 1, 0) * itl

def batch_throughput(param_bytes, bandwidth, batch):
    per_stream = 1 / decode_step_seconds(param_bytes, bandwidth)
    return batch * per_stream, per_stream

def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    contexts = sum(prompt_len + k for k in range(n_tokens))
    return (n_tokens * param_bytes + kv_bytes_per_token * contexts) / bandwidth
""",
    "values_other_styles": """
gb_per_step = 13e9 * 1 / 1e9
ms_per_token = gb_per_step * 1e9 / 3.35e12 * 1000
max_tokens_per_s = 1000 / ms_per_token
answer_sequential = " a "
answer_batching_bug = "b"
""",
    "values_typed_by_hand": """
gb_per_step = 13.0
ms_per_token = 3.881
max_tokens_per_s = 257.69
""",
}


@pytest.fixture(scope="module")
def graded() -> dict[str, dict[str, Any]]:
    variants = [Variant(name, code) for name, (_, code, _) in WRONG.items()]
    variants += [Variant(name, code) for name, code in RIGHT.items()]
    return grade_variants(load_lesson("decode"), variants)


def _questions(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {q["id"]: q for q in report["questions"]}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_answer_loses_points_and_is_named(graded: dict[str, dict[str, Any]], name: str) -> None:
    qid, _, pattern = WRONG[name]
    questions = _questions(graded[name])
    mine = questions[qid]
    assert mine["score"] < mine["max_score"], f"{name}: full marks for a wrong {qid}: {mine['feedback']}"
    assert any(re.search(pattern, line) for line in mine["feedback"]), (name, pattern, mine["feedback"])
    others = {q: r["feedback"] for q, r in questions.items() if q != qid and r["score"] < r["max_score"]}
    assert not others, f"{name}: a mistake in {qid} cost points elsewhere: {others}"


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_a_right_answer_in_another_style_keeps_full_marks(graded: dict[str, dict[str, Any]], name: str) -> None:
    report = graded[name]
    lost = {q["id"]: q["feedback"] for q in report["questions"] if q["score"] < q["max_score"]}
    assert not lost, f"{name}: a right answer lost points: {lost}"
    assert report["score"] == report["max_score"]


def _decode_conftest() -> Any:
    path = REPO / "exercises" / "decode" / "suites" / "conftest.py"
    spec = importlib.util.spec_from_file_location("decode_conftest_for_tests", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_wrong_generate_is_drawn_by_the_generated_check() -> None:
    """The generated call_order check samples every wrong generate the conftest defines, and each of them
    differs from the sequential order for some n in 0..6 (so it is a wrong answer, not a right one renamed)."""
    conftest = _decode_conftest()
    source = (REPO / "exercises" / "decode" / "suites" / "test_generate.py").read_text()
    names = set(conftest.wrong_generates())
    listed = set(re.findall(r'"(\w+)"', source.split("WRONG_GENERATES = (")[1].split(")")[0]))
    assert listed == names
    for name, stand_in in conftest.wrong_generates().items():
        assert any(not conftest.expected_verdict(stand_in, p, n) for p in range(4) for n in range(7)), name
