"""The Prefill lesson (lesson 2 of the chapter) held to its own checks (tests/test_lesson_gates.py runs the gates
every lesson passes: fresh build, full marks and zero, corpus, audit, nbgrader, Gradescope): every number its
text shows is what its functions compute, no by-hand answer is on the learner's page, its choices do not give
themselves away, and the suites' diagnosis can tell its slips apart (a probe per function, a panel for the
comparison)."""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

from grader.lessons import load_lesson
from tests.lesson_support import (
    Claim,
    choice_options,
    learner_page,
    notebook,
    reference,
    suite_module,
    unclaimed_bold_numbers,
    wrong_claims,
)

LESSON = load_lesson("prefill")


def _reference() -> Any:
    return reference(LESSON)


def _module(name: str) -> Any:
    return suite_module(LESSON, name)


# -- every number in the text is the lesson's own -----------------------------------------------------------------


def _claims(r: Any) -> list[Claim]:
    """(a passage of the text, the number it shows, that number computed, relative tolerance or 0 for half a unit
    of the last digit shown)."""
    flops = r.prefill_flops(70e9, 4000)
    ridge = r.ridge_point(1.979e15, 4.8e12)
    attention = 2 * 80 * 4000**2 * 8192  # 2 x layers x L^2 x attention width (Llama-3-70B: 64 heads x 128)
    kv = r.kv_bytes_written(4000, 80, 8, 128, 2)
    return [
        ("2 x 70e9 x 4,000 = **5.6e14 FLOPs**", "5.6e14", flops, 1e-9),
        ("2 x 4,000 / 1 = **8,000 FLOPs per byte**", "8000", r.prefill_intensity(4000, 1), 0),
        ("1.979e15 / 4.8e12 ≈ **412 FLOPs per byte**", "412", ridge, 0),
        ("(the same for the pair, 3.958e15 / 9.6e12)", "412", r.ridge_point(3.958e15, 9.6e12), 0),
        ("the prompt sits about 19 times above it", "19", r.prefill_intensity(4000, 1) / ridge, 0),
        ("412 x 1 / 2 ≈ 206 tokens", "206", ridge * 1 / 2, 0),
        ("5.6e14 / 3.958e15 ≈ **0.141 s**", "0.141", r.ttft_seconds(70e9, 4000, 3.958e15, 1.0), 0),
        ("5.6e14 / (3.958e15 x 0.28) ≈ **0.51 s**", "0.51", r.ttft_seconds(70e9, 4000, 3.958e15, 0.28), 0),
        ("70e9 / 9.6e12 ≈ 7.3 ms", "7.3", 70e9 / 9.6e12 * 1e3, 0),
        ("about 10 ms at about 73% of that bandwidth", "10", 70e9 / (0.73 * 9.6e12) * 1e3, 0),
        ("2 x 80 layers x 4,000^2 x 8,192 ≈ 2.1e13 FLOPs", "2.1e13", attention, 0.01),
        ("about **3.7%** of 5.6e14", "3.7", attention / flops * 100, 0),
        (
            "At 32,000 tokens it would be about 30%",
            "30",
            2 * 80 * 32000**2 * 8192 / r.prefill_flops(70e9, 32000) * 100,
            0.01,
        ),
        ("2 x 80 x 8 x 128 x 2 = 327,680 bytes per token", "327680", r.kv_bytes_written(1, 80, 8, 128, 2), 0),
        ("x 4,000 tokens = **1.31 GB** written", "1.31", kv / 1e9, 0),
        ("written (1.22 GiB)", "1.22", kv / 2**30, 0),
        ("1.31e9 bytes is 1.31 GB but 1.22 GiB", "1.22", 1.31e9 / 2**30, 0),
        ("2 x 4.8 = 9.6 TB/s and 2 x 1,979 = 3,958 TFLOP/s", "3958", 2 * 1979, 0),
        (
            "the intensity is 2 x 4,000 = 8,000 FLOPs per byte, nearly twenty times",
            "8000",
            r.prefill_intensity(4000, 1),
            0,
        ),
        ("nearly twenty times the H200's ridge point of 412", "412", ridge, 0),
        ("far below the ridge point of 412", "412", ridge, 0),
        ("(about 206 tokens here)", "206", ridge / 2, 0),
        (
            "At 32,000 tokens attention's term is about 30%",
            "30",
            2 * 80 * 32000**2 * 8192 / r.prefill_flops(70e9, 32000) * 100,
            0.01,
        ),
        ("a KV cache eight times the size", "8", r.kv_bytes_written(32000, 80, 8, 128, 2) / kv, 0),
    ]


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    assert wrong_claims(LESSON, _claims(_reference())) == []


#: Bold text that starts with a digit but states a formula or a given, not a computed number.
FORMULAS = (
    "**2·N FLOPs per token**",
    "**2·N·L FLOPs**",
    "**2L / b FLOPs per byte**",
    "**70B-parameter model in FP8**",
    "**28% utilisation**",
)


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    assert unclaimed_bold_numbers(LESSON, _claims(_reference()), FORMULAS) == []


def test_the_chapter_replica_agrees_with_decodes_check_yourself_question() -> None:
    """About 0.5 s for the 4,000-token prefill and about 10 ms a decoded token, on two H200s (CHAPTER.md)."""
    r = _reference()
    assert 0.45 <= r.ttft_seconds(70e9, 4000, 2 * 1.979e15, 0.28) <= 0.55
    assert 0.009 <= 70e9 / (0.73 * 2 * 4.8e12) <= 0.011
    assert r.is_compute_bound(4000, 1, 1.979e15, 4.8e12) and not r.is_compute_bound(1, 1, 1.979e15, 4.8e12)


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    r = _reference()
    names = []
    for cell in notebook(LESSON.solution).cells:
        for name, args, shown in re.findall(r"Example: (\w+)\((.*)\) -> (.+)", cell.source):
            names.append(name)
            value = eval(f"r.{name}({args})", {"r": r})  # the docstring's own call, on the reference
            if shown.endswith("..."):
                digits = shown.rstrip(".")
                assert str(value).startswith(digits), (name, value, shown)
            else:
                assert value == eval(shown), (name, value, shown)
    assert sorted(names) == sorted(q.id for q in LESSON.questions if q.kind == "function")


# -- no by-hand answer on the learner's page -------------------------------------------------------------------------


def _renderings(value: float) -> set[str]:
    """How a number may be written: 3 to 5 significant figures, plain or with an exponent, whole digits."""
    out = set()
    for digits in (3, 4, 5):
        short = f"{value:.{digits}g}"
        out.add(short.replace("e+", "e").replace("e0", "e"))
        mantissa, _, exponent = f"{value:.{digits - 1}e}".partition("e")
        out.add(f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}")
    if value >= 1:
        out.add(f"{value:.0f}")
    return {s for s in out if sum(ch.isdigit() for ch in s) >= 2}


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = _reference()
    seen = learner_page(LESSON)
    by_hand = [q.id for q in LESSON.questions if q.kind == "value"]
    assert by_hand
    for name in by_hand:
        for shown in _renderings(float(getattr(r, name))):
            assert not re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d])", seen), f"{name}: {shown} is on the page"


def test_the_check_catches_an_answer_left_on_the_page() -> None:
    """The search above can fail: 54.6 ms written into the text would be found."""
    seen = learner_page(LESSON) + "\nthat takes 54.6 ms"
    assert any(re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", seen) for s in _renderings(float(_reference().ttft_ms)))


# -- choices -----------------------------------------------------------------------------------------------------------


def test_no_right_option_is_the_longest_and_the_right_letters_vary() -> None:
    r = _reference()
    letters = []
    for question, options in choice_options(LESSON).items():
        right = getattr(r, question).strip().upper()
        letters.append(right)
        others = [len(text) for letter, text in options.items() if letter != right]
        assert len(options) >= 3 and len(options[right]) < max(others), (question, options[right])
    assert len(set(letters)) == len(letters)


# -- the suites can tell the slips apart ----------------------------------------------------------------------------


def test_each_probe_separates_every_slip_of_its_function() -> None:
    suite = _module("conftest")
    for name, slips in suite.SLIPS.items():
        probe = suite.PROBES[name]
        values = [suite.SPEC[name](**probe)] + [rule(**probe) for _, rule in slips]
        for (i, a), (j, b) in itertools.combinations(enumerate(values), 2):
            assert not math.isclose(a, b, rel_tol=1e-4), (name, slips[i - 1][0] if i else "right", slips[j - 1][0])


def test_the_panel_tells_every_wrong_comparison_from_the_others_and_from_the_right_one() -> None:
    suite = _module("conftest")
    verdicts = [tuple(2 * L / b > 400 for L, b in suite.PANEL)]
    verdicts += [tuple(rule(L, b, 400.0) for L, b in suite.PANEL) for _, rule in suite.WRONG_RULES]
    assert len(set(verdicts)) == len(verdicts)


def test_the_by_hand_slips_are_far_apart_and_the_expected_values_are_the_solutions() -> None:
    values = _module("test_values")
    r = _reference()
    for name, (expected, rel, _, _) in values.VALUES.items():
        assert math.isclose(float(getattr(r, name)), expected, rel_tol=1e-9), name
        known = [v for _, v in values.KNOWN[name]]
        assert all(abs(v / expected - 1) > max(rel, 2e-3) * 2 for v in known), name
        for a, b in itertools.combinations(known, 2):
            assert abs(a / b - 1) > 4e-3, (name, a, b)
