"""The slip diagnosis (grader/diagnose.py): a wrong number compared with the right one under the course's
known slips is named in a learner's words, and end to end through `grade --json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.variants import variant_notebook
from grader.diagnose import candidates, confirmed, constant, explain, kind, structural, structural_slip, unit_slip
from tests.conftest import REPO, grade_json


@pytest.mark.parametrize(
    "got, expected, unit, phrase",
    [
        (14.0, 0.014, "s", "milliseconds instead of seconds"),
        (1.4e-5, 0.014, "s", "too small by a factor of 1,000"),
        (14e3, 14, "ms", "microseconds instead of milliseconds"),
        (0.014, 14, "ms", "seconds instead of milliseconds"),
        (112, 14, "GB", "bits instead of bytes"),
        (1.75, 14, "GB", "as if they were bits"),
        (7, 14, "GB", "a factor of 2 left out"),
        (28, 14, "GB", "counted twice"),
        (14e9, 14, "GB", "bytes instead of GB"),
        (14e3, 14, "GB", "MB instead of GB"),
        (112e3, 14, "", "8 x 1,000"),
        (0.0714, 71.4, "tokens/s", "tokens per millisecond"),
        (1 / 0.014, 0.014, "s", "upside down"),
        (71, 1000 / 14, "", "rounded to a whole number"),
        (71.4, 1000 / 14, "", "rounded to 1 decimal place"),
        (71.5, 1000 / 14, "", "close (0.10% off)"),
        (14e9 / 2**30, 14, "GB", "GiB"),
        (-0.014, 0.014, "s", "wrong sign"),
        (0.042, 0.014, "s", "factor of 3 exactly"),
        (None, 1.0, "", "forget the `return`"),
        ("14", 14, "", "It is a string"),
        ([0.5, 0.5], 1.0, "", "a list of 2 items"),
        ((0.5,), 1.0, "", "a tuple of 1 item"),
        (True, 1.0, "", "a bool"),
        (float("inf"), 1.0, "", "division by zero"),
    ],
)
def test_a_slip_is_named(got: object, expected: float, unit: str, phrase: str) -> None:
    assert phrase in explain(got, expected, unit=unit)


def test_a_lesson_slip_is_tried_first() -> None:
    known = [("That is the step time in seconds: multiply by 1000.", 0.014)]
    assert explain(0.014, 14, unit="ms", known=known).startswith("That is the step time in seconds")


@pytest.mark.parametrize("got, expected", [(0.0371, 0.014), (3.3, 7.0), (1.0, 1.0)])
def test_nothing_is_claimed_without_evidence(got: float, expected: float) -> None:
    assert explain(got, expected) == ""


def test_no_sentence_states_the_expected_value() -> None:
    for got in (7, 112, 14e9, 1 / 14, 71, 71.5, 0.042, "x", None):
        sentence = explain(got, 14.0, unit="GB")
        assert "14" not in sentence.replace("14e", ""), sentence


def test_a_constant_answer_is_named() -> None:
    assert "hard-coded" in constant([0.014, 0.014], [0.014, 0.02])
    assert constant([0.014, 0.02], [0.014, 0.02]) == ""
    assert constant([0.0, 0.0], [0.0, 0.0]) == ""  # right both times: nothing to say


def test_unit_slip_reports_the_ratio_and_kind_words() -> None:
    slip = unit_slip(8.0, 1.0)
    assert slip is not None and slip.ratio == 8.0
    assert unit_slip(1.3, 1.0) is None
    assert kind((1, 2)) == "a tuple" and kind(None) == "None" and kind(3) == "an int"


WRONG = """
gb_per_step = 104  # 13e9 parameters x 8 bits
def decode_step_seconds(param_bytes, bandwidth):
    return param_bytes / bandwidth * 1000
def tokens_per_second(param_bytes, bandwidth):
    return 71.4
def generate(next_token, prompt, n):
    seq = list(prompt)
    for _ in range(n):
        next_token(seq)
        seq.append(next_token(seq))
    return seq
"""


@pytest.mark.slow
def test_grade_json_names_each_slip(tmp_path: Path) -> None:
    path = tmp_path / "learner.ipynb"
    path.write_text(json.dumps(variant_notebook(REPO / "solutions" / "decode.ipynb", WRONG)), encoding="utf-8")
    report = {q["id"]: q for q in grade_json(str(path))["questions"]}
    expectations = {
        "gb_per_step": "bits instead of bytes",
        "decode_step_seconds": "in milliseconds",
        "tokens_per_second": "hard-coded",
        "generate": "twice per new token",
    }
    for qid, phrase in expectations.items():
        text = " ".join(report[qid]["feedback"])
        assert report[qid]["score"] < report[qid]["max_score"] and phrase in text, (qid, text)
    assert any("of 3 checks passed, worth" in line for line in report["decode_step_seconds"]["feedback"])
    assert "0 of 1 check passed, each worth 1 point." in report["gb_per_step"]["feedback"]


def test_a_slip_is_named_only_if_a_second_input_shows_it_too() -> None:
    """0.015 for 0.0145 looks rounded to 3 decimals; on another input the same code gives 2x the KV term, not a
    rounding: the two inputs share no slip, so none is named. The same factor on both is named."""
    first = candidates(0.015, 0.0145)
    assert [c.key for c in first] == ["rounded"]
    assert confirmed(first, candidates(0.0200262, 0.0200131)) is None
    assert confirmed(first, candidates(0.02, 0.0204)) is not None  # rounded again
    doubled = candidates(2.0, 1.0)
    assert confirmed(doubled, candidates(6.0, 3.0)) == doubled[0]
    assert confirmed(doubled, None) == doubled[0]  # one candidate, no second answer to compare: still named


def test_one_input_that_fits_two_slips_names_neither_without_a_second() -> None:
    """context_len = 1: the KV counted twice and the context one too long give the same number."""
    known = [("The KV counted twice.", 3.0), ("The context is one too long.", 3.0)]
    found = candidates(3.0, 2.0, known=known)
    assert len(found) >= 2 and confirmed(found, None) is None
    later = candidates(5.0, 3.0, known=[("The KV counted twice.", 5.0), ("The context is one too long.", 4.0)])
    assert confirmed(found, later) is not None and confirmed(found, later).sentence.startswith("The KV counted twice")


@pytest.mark.parametrize("got", [4.0, 0.25, 16.0, 1 / 16, 2000.0])
def test_a_product_of_two_factors_is_stated_not_decomposed(got: float) -> None:
    """x 2 written for / 2 is one slip and gives 4, as do two different slips of 2: one number cannot say which,
    so no sentence claims "the same slip twice" or names a cause (2 bytes per parameter, in a time with no bytes)."""
    sentence = explain(got, 1.0)
    assert "factor of" in sentence and "exactly" in sentence, sentence
    for claim in ("the same slip twice", "two slips at once", "bytes per parameter", "bits instead"):
        assert claim not in sentence, sentence


def test_a_lesson_slip_says_its_factor_as_its_effect_not_as_a_second_slip() -> None:
    """max for min in a roofline gives 1,000x on one input; b x b for b gives 16 = 2 x 8: one slip each."""
    for got, expected in ((1e13, 1e10), (296.0, 18.5)):
        sentence = explain(got, expected, known=[("That is the lesson's slip.", got)])
        assert sentence.startswith("That is the lesson's slip. (That makes it too big by a factor of"), sentence
        assert " = " not in sentence and "slip" not in sentence.removeprefix("That is the lesson's slip."), sentence


def test_a_reciprocal_off_by_a_unit_factor_needs_a_second_input() -> None:
    """min for max in a step time: 1e-4 for 1e-2, product 1e-6, which looks like an inverted formula with a unit
    slip on top; nothing is inverted. The reading is named only when another input gives the same product."""
    known = [("That is the smaller of the two times.", 1e-4)]
    assert "reciprocal" not in explain(1e-4, 1e-2, known=known)
    assert "reciprocal" not in explain(1e-4, 1e-2)
    first = candidates(1e-4, 1e-2)
    assert confirmed(first, None) is None
    assert confirmed(first, candidates(1e-3, 1e-2)) is None  # another product: not a reciprocal
    again = confirmed(first, candidates(1e-5, 0.1))  # the same product, 1e-6
    assert again is not None and "reciprocal of the right answer times 1e-06" in again.sentence


def test_a_near_miss_guesses_no_cause() -> None:
    """prompt_len + 1 positions is 0.03% off at 4,000 tokens and 100% off at 1: not a rounding, though one number
    close to the answer looks like one. The sentence says it is close, and names no cause."""
    sentence = explain(4001 * 327680.0, 4000 * 327680.0)
    assert "close (0.03% off)" in sentence and "round" not in sentence and "approximate" not in sentence, sentence


def test_a_zero_is_never_called_the_right_value_rounded() -> None:
    from grader.diagnose import rounded

    assert rounded(0.0, 0.3) == ""  # 0 is what integer division, `return 0` and a stub-like answer give
    assert rounded(0, 0.004) == ""
    assert "whole number" in rounded(71.0, 71.43)  # a real rounding is still named


# -- structural slips: the reference itself with one change, named only when it gives every result seen ---------


def _latency(ttft: float, itl: float, n_out: int) -> float:
    return ttft + (n_out - 1) * itl


def _rate(n_out: int, ttft: float, itl: float) -> float:
    return n_out / _latency(ttft, itl, n_out)


def _step(weights: float, cache: float, batch: int, bandwidth: float) -> float:
    return (weights + batch * cache) / bandwidth


def _fleet(weights: float, cache: float, batch: int, bandwidth: float) -> float:
    return batch / _step(weights, cache, batch, bandwidth)


LATENCY = ("ttft", "itl", "n_out")
STEP = ("weights", "cache", "batch", "bandwidth")
INPUTS = [dict(ttft=0.5, itl=0.01, n_out=500), dict(ttft=0.73, itl=0.021, n_out=7), dict(ttft=0.2, itl=0.05, n_out=1)]
STEPS = [
    dict(weights=7e10, cache=1.3e9, batch=64, bandwidth=9.6e12),
    dict(weights=3.1e8, cache=3.5e8, batch=7, bandwidth=1.7e12),
]


def _seen(rule: Any, inputs: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Any]]:
    return [(a, rule(**a)) for a in inputs]


def test_brackets_left_out_of_the_specs_own_source_are_named() -> None:
    said = structural_slip(_latency, LATENCY, _seen(lambda ttft, itl, n_out: ttft + n_out - 1 * itl, INPUTS))
    assert said.startswith("The brackets round `n_out - 1` are left out") and said.endswith(".")


def test_two_arguments_swapped_are_named_and_a_helpers_call_in_the_callers_order_too() -> None:
    said = structural_slip(
        _step, STEP, _seen(lambda weights, cache, batch, bandwidth: _step(cache, weights, batch, bandwidth), STEPS)
    )
    assert "`weights` and `cache` are swapped" in said
    said = structural_slip(
        _rate, ("n_out", "ttft", "itl"), _seen(lambda n_out, ttft, itl: n_out / _latency(n_out, ttft, itl), INPUTS)
    )
    assert "`_latency(n_out, ttft, itl)` gives where `_latency(ttft, itl, n_out)` belongs" in said


def test_an_argument_fixed_to_the_pages_value_is_named_with_that_value_everywhere_or_at_one_use() -> None:
    page = [dict(weights=7e10, cache=1.3e9, batch=64, bandwidth=9.6e12)]
    fixed = _seen(lambda weights, cache, batch, bandwidth: 64 / _step(weights, cache, batch, bandwidth), STEPS[1:])
    assert structural_slip(_fleet, STEP, fixed, page).startswith("One use of `batch` is a fixed number")
    assert "64 in place of `batch`" in structural_slip(_fleet, STEP, fixed, page)
    assert structural_slip(_fleet, STEP, fixed) == ""  # without the page, 64 is no value any input had


def test_a_spec_is_read_once_and_its_changed_versions_keep_equal_constants_of_other_types_apart() -> None:
    """The spec's source and its changed versions are kept between wrong answers (a reference never changes while
    its suites are loaded), and a constant is kept by its spelling: 1 and 1.0, 0.0 and -0.0 build other code."""
    from grader import diagnose

    def share(total: int, parts: int) -> Any:
        return total // parts * parts

    diagnose._source.cache_clear()
    for _ in range(3):
        diagnose._one_use_fixed(share, ("total", "parts"), {"parts": [1, 1.0, 0.0, -0.0]})
    assert diagnose._source.cache_info().misses == 1
    changed = {repr(c): f for _, c, k, f in diagnose._one_use_fixed(share, ("parts",), {"parts": [1, 1.0]}) if k == 1}
    assert type(changed["1"](total=7, parts=2)) is int and type(changed["1.0"](total=7, parts=2)) is float
    signed = {repr(c): f for _, c, k, f in diagnose._one_use_fixed(share, ("parts",), {"parts": [0.0, -0.0]}) if k == 0}
    assert str(signed["0.0"](total=7.0, parts=1)) == "0.0" and str(signed["-0.0"](total=7.0, parts=1)) == "-0.0"


def test_a_guard_returning_0_at_a_zero_argument_is_named_only_when_the_rest_is_right() -> None:
    guarded = [(dict(weights=7e10, cache=1.3e9, batch=0, bandwidth=9.6e12), 0.0), *_seen(_step, STEPS)]
    assert "returns 0 where `batch` is 0" in structural_slip(_step, STEP, guarded)
    assert structural_slip(_step, STEP, [guarded[0], (STEPS[0], 1.0)]) == ""


def test_an_off_by_one_at_an_exact_fit_needs_the_unrounded_quotient() -> None:
    def boxes(items: int, per: int) -> int:
        return items // per

    seen = [(dict(items=96, per=8), 11), (dict(items=95, per=8), 11), (dict(items=7, per=8), 0)]
    assert "ceil - 1" in structural_slip(boxes, ("items", "per"), seen, unrounded=lambda items, per: items / per)
    assert structural_slip(boxes, ("items", "per"), seen) == ""


def test_nothing_is_named_for_a_constant_a_right_first_answer_or_two_readings_that_agree() -> None:
    zeros = [(a, 0.0) for a in STEPS]
    assert structural(_step, STEP, zeros) == []  # 0 everywhere: many changes give it (a bandwidth of 0 ...)
    assert structural(_step, STEP, _seen(_step, STEPS)) == []
    # the batch doubled or the cache doubled: their product is all the formula sees, so no input tells them apart
    one = [(dict(weights=2.0, cache=4.0, batch=1, bandwidth=8.0), 1.25)]
    assert len(structural(_step, STEP, one)) > 1 and structural_slip(_step, STEP, one) == ""


def _roof(flops: float, bytes_moved: float, peak: float, bandwidth: float) -> float:
    return max(flops / peak, bytes_moved / bandwidth)


def _pass(n: float, b: float, tokens: int, peak: float, bandwidth: float) -> float:
    return _roof(2 * n * tokens, n * b, peak, bandwidth)


def test_two_orders_that_agree_on_every_input_are_both_said_never_one() -> None:
    """The FLOPs and the bytes swapped in the helper's call give what the peak and the bandwidth swapped give, on
    every input: naming the one swap would be wrong for a learner who made the other (issue 33)."""
    inputs = [
        dict(n=7e10, b=1, tokens=32, peak=3.958e15, bandwidth=9.6e12),
        dict(n=8e9, b=1, tokens=1, peak=1.979e15, bandwidth=3.35e12),
    ]
    said = structural_slip(
        _pass,
        ("n", "b", "tokens", "peak", "bandwidth"),
        _seen(lambda n, b, tokens, peak, bandwidth: _roof(n * b, 2 * n * tokens, peak, bandwidth), inputs),
    )
    assert "`peak` and `bandwidth` in each other's places" in said, said
    assert (
        "`_roof(n * b, 2 * n * tokens, peak, bandwidth)` where `_roof(2 * n * tokens, n * b, peak, bandwidth)` belongs"
        in said
    ), said
    # the bare swap of two of its own arguments in the call is their swap: said once, in the function's own terms
    said = structural_slip(
        _pass,
        ("n", "b", "tokens", "peak", "bandwidth"),
        _seen(lambda n, b, tokens, peak, bandwidth: _roof(2 * n * tokens, n * b, bandwidth, peak), inputs[:1]),
    )
    assert "in each other's places" in said and said.count("`peak` and `bandwidth`") == 1, said
