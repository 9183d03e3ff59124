"""What a learner or a teaching assistant reads: a rounded answer named as rounding in every lesson's by-hand
checks, feedback wrapped at word boundaries, the chapter's counts and merged slips, a copied Part 1 said once."""

from __future__ import annotations

import io

import pytest

from grader.checks import expect_value, rounded_too_far, three_figures
from grader.model import QuestionResult, Report
from grader.params import COPY_OPENING, OtherNumbers
from grader.report.class_report import normal_form
from grader.selfcheck import describe
from grader.testing import Mismatch
from grader.text import wrapped

# -- class 1: rounding past what the question allows -------------------------------------------------------------


def _feedback(value: float, expected: float, rel: float, abs_tol: float = 0.0) -> str:
    with pytest.raises(Mismatch) as caught:
        expect_value("x_ms", value, expected, meaning="the time", known=(), rel=rel, abs_tol=abs_tol)
    return str(caught.value)


def test_two_figures_where_three_are_allowed_is_named_rounding_in_any_lesson() -> None:
    """No lesson opts in: every by-hand check names it (it was "close" or "can't tell" in four lessons)."""
    right = 123.456
    text = _feedback(120.0, right, three_figures(right, 1e-3))
    assert "rounded to 2 significant figures" in text and "may be rounded to 3 significant figures" in text
    assert "can't tell" not in text and "close" not in text


def test_a_cut_is_named_without_its_figure_count_which_would_give_the_answer() -> None:
    right = 123.756  # 3 figures allowed; cut to 123, rounding gives 124: "cut to 3 figures" would say so
    text = rounded_too_far(123.0, right, three_figures(right, 1e-3))
    assert "cut" in text and "not rounded" in text and "3 significant" not in text and "124" not in text
    assert "truncated" in rounded_too_far(12.34, 12.345678, 1e-6)


def test_an_answer_asked_to_decimals_is_told_how_many_to_keep() -> None:
    assert "keep at least 2 decimal places" in rounded_too_far(12.3, 12.345, 1e-6, abs_tol=0.005)
    assert "keep the full value" in rounded_too_far(4.3e13, 4.32e13, 1e-6)


def test_rounding_is_named_only_when_it_is_exact_and_wrong() -> None:
    right = 123.456
    assert rounded_too_far(123.0, right, three_figures(right, 1e-3)) == ""  # allowed: right, nothing to name
    assert rounded_too_far(0.0, 0.3, 1e-6) == ""  # 0 is what many slips return
    assert rounded_too_far(120.5, right, 1e-6) == ""  # no rounding of it
    assert rounded_too_far(30.0, 37.0, 1e-6) == ""  # a count: 30 is likelier a slip than "1 figure"
    assert rounded_too_far(0.28, 0.29, 1e-6) == ""  # 0.29 x 100 is 28.999999999999996: no cut gives 0.28


# -- class 6: text wrapped at word boundaries; the chapter's plural and merged slips --------------------------------

LONG = (
    "`ttft_ms` is 0.0546, which is not right for the time to first token in milliseconds. That is the time in "
    "seconds: multiply by 1,000 for ms (see https://example.org/a-very-long-link-that-cannot-be-broken-anywhere)."
)


def test_self_check_feedback_is_wrapped_at_spaces_never_mid_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a Jupyter kernel (whose frontend breaks a long output line anywhere); elsewhere one line a sentence."""
    import sys
    import types

    import ipykernel  # noqa: F401  (imported, as in a process that ran a kernel's tests: still no kernel)

    from grader.selfcheck import _columns

    result = QuestionResult("ttft_ms", 0, 1, "failed", (LONG,))
    assert _columns() is None and describe(result, detail=True, columns=_columns()).splitlines()[1] == f"    {LONG}"
    shell = types.SimpleNamespace(kernel=object())  # what ipykernel's shell has and a terminal's has not
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    shown = describe(result, detail=True, columns=_columns())
    lines = shown.splitlines()[1:-1]
    assert len(lines) > 1 and all(line.startswith("    ") for line in lines)
    assert all(len(line) <= 80 for line in lines if " " in line.strip())  # only an unbreakable word is longer
    assert " ".join(line.strip() for line in lines) == LONG  # every word whole, in order
    assert "the time in" in shown.replace("\n    ", " ") and "the ti\n" not in shown


def test_wrapped_keeps_a_word_longer_than_a_line_whole() -> None:
    word = "x" * 120
    assert wrapped(f"see {word} here", "  ").splitlines() == ["  see", f"  {word}", "  here"]


def test_a_slip_with_and_without_its_parenthetical_is_one_misconception() -> None:
    assert normal_form("That is K or V only: the factor 2 (yours: 32).") == normal_form(
        "That is K or V only: the factor 2."
    )


def test_the_chapter_says_1_learner_not_1_learners() -> None:
    from grader.batch.chapter import Reteach, chapter_of, reteach_markdown

    order = (Reteach("decode", 3, 0.5, (("ms_per_token", "That is the time in seconds.", 1), ("gb", "A slip.", 2))),)
    text = reteach_markdown(chapter_of([]), order)
    assert "(1 learner):" in text and "(2 learners):" in text and "(1 learners)" not in text


# -- class 7: a Part 1 right for another learner's numbers ---------------------------------------------------------


def test_each_copied_answer_says_which_numbers_it_is_right_for_and_the_flag_comes_first() -> None:
    from rich.console import Console

    from grader.report.table import print_report

    copied = OtherNumbers(
        f"{COPY_OPENING} ... is right for another learner's numbers",
        frozenset({"a"}),
        "another learner's numbers",
        (("tb_per_s", 4.8),),
    )
    lost = QuestionResult("a", 0, 1, "failed", ("`a` is 1. I can't tell which slip gives this number.",))
    kept = QuestionResult("b", 0, 1, "failed", ("`b` is 2. I can't tell which slip gives this number.",))
    a, b = copied.mark(lost), copied.mark(kept)
    assert a.score == 0 and a.status == "failed" and len(a.feedback) == 1
    assert "right for another learner's numbers (tb_per_s = 4.8)" in a.feedback[0] and "can't tell" not in a.feedback[0]
    assert a.staff[1:] == lost.feedback  # the checks' own lines stay for the teaching assistant
    assert b == kept  # a question that does not tell the sets apart keeps its own feedback
    report = Report("decode", "nb.ipynb", 0, 2, (a, b), errors=("a cell raised", copied.note))
    out = io.StringIO()
    print_report(report, Console(file=out, width=200))
    text = out.getvalue()
    assert text.index(COPY_OPENING) < text.index("nb.ipynb") < text.index("a cell raised")


def test_a_number_that_is_a_known_slip_and_the_right_value_rounded_too_far_says_both() -> None:
    """2.3 for a latency of 2.332, where one gap too few gives 2.304: a slip typed rounded, or the right value
    rounded to 2 figures. One number cannot tell them apart, so neither is said alone."""
    known = (("one gap too few", 2.304),)
    with pytest.raises(Mismatch) as caught:
        expect_value("latency_s", 2.3, 2.332, meaning="the latency", known=known, rel=1e-6)
    said = str(caught.value)
    assert "That is one gap too few." in said and "Or else it is the right value rounded to 2 significant" in said
    with pytest.raises(Mismatch) as caught:
        expect_value("latency_s", 2.304, 2.332, meaning="the latency", known=known, rel=1e-6)
    assert "Or else" not in str(caught.value)  # the slip's own value, not a rounding of the right one


def test_a_factor_of_2_guesses_no_cause_the_learners_numbers_may_not_have() -> None:
    """A learner whose weights are FP8 (1 byte) or 4-bit has no 2 bytes per parameter to forget or apply twice."""
    from grader.diagnose import unit_slip

    for got in (7.0, 28.0):
        slip = unit_slip(got, 14.0, "GB")
        assert slip is not None and "factor of 2" in slip.sentence and "bytes per parameter" not in slip.sentence


def test_a_known_slip_giving_the_number_exactly_is_said_alone_even_when_a_rounding_lands_on_it() -> None:
    """240 for a median of 235.5 (the 5th sorted value, a rank counted from 1): the slip gives it exactly, and the
    right value rounded to 2 figures landing on it too is the coincidence; the learner is told the slip alone."""
    known = (("the 5th sorted value: a rank counted from 1", 240.0),)
    with pytest.raises(Mismatch) as caught:
        expect_value("p50_ms", 240, 235.5, meaning="the median", known=known, rel=1e-6)
    said = str(caught.value)
    assert "a rank counted from 1" in said and "Or else" not in said
