"""The Prefill lesson (lesson 2 of the chapter) held to its own gates: every number its text shows is what its
functions compute, no by-hand answer is on the learner's page, its choices do not give themselves away, and the
suites' diagnosis can tell its slips apart (a probe per function, a panel for the comparison)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from types import ModuleType
from typing import Any

import pytest

from grader.build import artefact_texts, nbgrader_path
from grader.lessons import load_lesson
from tests import lesson_support as page
from tests.conftest import REPO, run_grade

LESSON = load_lesson("prefill")
SUITES = REPO / "exercises" / "prefill" / "suites"


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"prefill_suite_{name}", SUITES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference() -> Any:
    return page.reference(LESSON)


# -- the committed notebooks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["learner", "solution", "nbgrader"])
def test_the_committed_notebooks_are_a_fresh_build(which: str) -> None:
    path = {"learner": LESSON.notebook, "solution": LESSON.solution, "nbgrader": nbgrader_path(LESSON)}[which]
    assert path.read_text(encoding="utf-8") == artefact_texts(LESSON)[path], (
        f"{path.relative_to(REPO)} is stale: edit exercises/prefill/prefill.py, then run grade build exercises/prefill"
    )


# -- every number in the text is the lesson's own -----------------------------------------------------------------


def _claims(r: Any) -> list[tuple[str, str, float, float]]:
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
    assert page.wrong_claims(page.markdown_text(LESSON), _claims(_reference())) == []


#: Bold text that starts with a digit but states a formula or a given, not a computed number.
FORMULAS = (
    "**2·N FLOPs per token**",
    "**2·N·L FLOPs**",
    "**2L / b FLOPs per byte**",
    "**70B-parameter model in FP8**",
    "**28% utilisation**",
)


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    assert page.unclaimed_bold_numbers(page.markdown_text(LESSON), _claims(_reference()), FORMULAS) == []


def test_the_chapter_replica_agrees_with_decodes_check_yourself_question() -> None:
    """About 0.5 s for the 4,000-token prefill and about 10 ms a decoded token, on two H200s (CHAPTER.md)."""
    r = _reference()
    assert 0.45 <= r.ttft_seconds(70e9, 4000, 2 * 1.979e15, 0.28) <= 0.55
    assert 0.009 <= 70e9 / (0.73 * 2 * 4.8e12) <= 0.011
    assert r.is_compute_bound(4000, 1, 1.979e15, 4.8e12) and not r.is_compute_bound(1, 1, 1.979e15, 4.8e12)


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    assert page.wrong_docstring_examples(LESSON, _reference()) == []


# -- no by-hand answer on the learner's page -------------------------------------------------------------------------


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    r = _reference()
    seen = page.learner_sees(LESSON)
    by_hand = [q.id for q in LESSON.questions if q.kind == "value"]
    assert by_hand
    for name in by_hand:
        assert page.on_page(float(getattr(r, name)), seen) == [], name


def test_the_check_catches_an_answer_left_on_the_page() -> None:
    """The search above can fail: 54.6 ms written into the text would be found."""
    seen = page.learner_sees(LESSON) + "\nthat takes 54.6 ms"
    assert page.on_page(float(_reference().ttft_ms), seen)


# -- choices -----------------------------------------------------------------------------------------------------------


def test_no_right_option_is_the_longest_and_the_right_letters_vary() -> None:
    assert page.longest_right_options(LESSON, _reference()) == []


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


# -- the gates, graded for real ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_solution_gets_full_marks_and_the_untouched_notebook_zero() -> None:
    for path, full in ((LESSON.solution, True), (LESSON.notebook, False)):
        result = run_grade(str(path), "--json")
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["score"] == (report["max_score"] if full else 0) and report["max_score"] == LESSON.max_score


@pytest.mark.slow
def test_the_prefill_corpus_is_caught_named_and_kept() -> None:
    from grader.corpus import check_lesson

    report = check_lesson("prefill")
    assert report.wrong_answers >= 39 and report.correct_answers >= 6
    assert report.ok, "\n".join(report.lines())


@pytest.mark.slow
def test_the_prefill_suites_kill_every_mutant() -> None:
    from grader.audit import audit_lesson
    from grader.audit.report import format_text

    report = audit_lesson(LESSON)
    assert sum(f.graded for f in report.functions) > 150
    assert report.ok and not report.stale, format_text(report)


@pytest.mark.slow
def test_nbgrader_test_cells_and_grade_agree_on_every_corpus_answer() -> None:
    """What an nbgrader test cell scores (in the kernel's namespace) is what ``grade`` scores (in the isolated
    worker), question by question, for every answer of the corpus."""
    assert page.nbgrader_disagreements(LESSON) == []
