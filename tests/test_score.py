"""Step 4 on its own: points come only from passes, split by weight, with honest statuses."""

from __future__ import annotations

from pathlib import Path

from grader.model import Execution, Lesson, Question, Submission, TestOutcome
from grader.score import score, score_question

Q = Question("f", "function", 4.0)
LESSON = Lesson("l", "L", Path("."), (Q, Question("v", "value", 1.0)), Path("."), Path("."), Path("."))
SUB = Submission(Path("s.ipynb"), (), "l", "d")


def test_partial_credit_by_weight() -> None:
    outcomes = [TestOutcome("f", "a", 1, "passed"), TestOutcome("f", "b", 3, "failed", "wrong: 1000x")]
    result = score_question(Q, outcomes)
    assert (result.score, result.status, result.feedback[0]) == (1.0, "partial", "wrong: 1000x")
    assert result.feedback[1:] == ("1 of 2 checks passed, worth 1 to 3 points each.",)


def test_not_attempted_and_missing_and_errors_earn_nothing() -> None:
    assert score_question(Q, [TestOutcome("f", "a", 1, "not-attempted", "x")]).status == "not-attempted"
    assert score_question(Q, [TestOutcome("f", "a", 1, "missing", "no f")]).status == "missing"
    hung = score_question(Q, [TestOutcome("f", "a", 1, "error", "did not return")])
    assert (hung.score, hung.status) == (0.0, "error")


def test_a_question_without_tests_scores_zero_not_full() -> None:
    assert score_question(Q, []).score == 0.0


def test_a_failed_run_zeroes_everything_with_the_reason() -> None:
    report = score(LESSON, SUB, Execution(failure="ran longer than 30 s"), (TestOutcome("f", "a", 1, "passed"),))
    assert report.score == 0 and report.max_score == 5
    assert all(q.feedback == ("ran longer than 30 s",) for q in report.questions)
    assert report.errors == ("ran longer than 30 s",)


def test_total_is_the_sum() -> None:
    outcomes = (TestOutcome("f", "a", 1, "passed"), TestOutcome("v", "b", 1, "passed"))
    report = score(LESSON, SUB, Execution(), outcomes)
    assert (report.score, report.max_score) == (5.0, 5.0)


def _missing_with_cell_error(source: str, ename: str = "NameError") -> tuple[str, ...]:
    from grader.model import Cell, CellError

    lesson = Lesson("l", "L", Path("."), (Question("gb_per_step", "value", 1.0),), Path("."), Path("."), Path("."))
    submission = Submission(Path("nb.ipynb"), (Cell(0, "x = 1"), Cell(2, source)), None, "d")
    execution = Execution(cell_errors=(CellError(2, ename, "name 'param_byts' is not defined", source[:20]),))
    missing = TestOutcome("gb_per_step", "t", 1, "missing", "Your notebook does not define `gb_per_step`.")
    return score(lesson, submission, execution, (missing,)).questions[0].feedback


def test_a_missing_answer_whose_own_cell_raised_is_told_that_cells_error() -> None:
    feedback = _missing_with_cell_error("gb_per_step = param_byts / 1e9")
    assert any("Cell 2, which defines `gb_per_step`" in line and "raised NameError" in line for line in feedback)


def test_the_raised_cell_is_quoted_so_a_learner_can_find_it() -> None:
    """Jupyter shows no number on a cell that has not run: the note quotes the cell's start, as the errors do."""
    feedback = _missing_with_cell_error("gb_per_step = param_byts / 1e9")
    assert any("(`gb_per_step = param_`)" in line for line in feedback), feedback


def test_a_missing_answer_is_not_blamed_on_another_cells_error() -> None:
    for source in ("other = param_byts / 1e9", "print(gb_per_step)", "x" * 30_000 + " = 1\ngb_per_step = 1"):
        feedback = _missing_with_cell_error(source)
        assert not any("which defines" in line for line in feedback), (source[:40], feedback)


def test_an_answer_credited_for_following_from_a_wrong_earlier_one_says_so_and_keeps_its_points() -> None:
    """Carried forward (grader.checks.Carried): the note names the earlier answer, never a value, and only while
    that answer is marked wrong; the score is the pass's."""
    gb, ms = Question("gb", "value", 1.0), Question("ms", "value", 1.0)
    lesson = Lesson("l", "L", Path("."), (gb, ms), Path("."), Path("."), Path("."))
    credited = TestOutcome("ms", "t", 1, "passed", carried=("gb",))
    for gb_outcome, noted in (
        (TestOutcome("gb", "t", 1, "failed", "wrong"), True),
        (TestOutcome("gb", "t", 1, "passed"), False),
    ):
        report = score(lesson, SUB, Execution(), (gb_outcome, credited))
        result = report.questions[1]
        assert result.score == 1.0 and result.feedback[0] == "The check passed."
        assert result.feedback[1:] == (
            (
                "Credited because it follows from your own `gb`, which is marked wrong (see gb): once `gb` is "
                "fixed, work this answer again from it.",
            )
            if noted
            else ()
        )


def test_an_answer_carried_from_a_carried_one_names_the_wrong_answer_up_the_chain() -> None:
    gb, ms, tps = (Question(q, "value", 1.0) for q in ("gb", "ms", "tps"))
    lesson = Lesson("l", "L", Path("."), (gb, ms, tps), Path("."), Path("."), Path("."))
    outcomes = (
        TestOutcome("gb", "t", 1, "failed", "wrong"),
        TestOutcome("ms", "t", 1, "passed", carried=("gb",)),
        TestOutcome("tps", "t", 1, "passed", carried=("ms",)),
    )
    report = score(lesson, SUB, Execution(), outcomes)
    assert report.score == 2.0
    assert [line for line in report.questions[2].feedback if "follows from" in line] == [
        "Credited because it follows from your own `gb`, which is marked wrong (see gb): once `gb` is fixed, work "
        "this answer again from it."
    ]
