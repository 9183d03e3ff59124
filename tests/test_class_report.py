"""A class report that says what to re-teach, numbers as people write them, and one summary line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.batch.model import BatchSummary, Row
from grader.batch.progress import format_summary
from grader.model import QuestionResult, Report
from grader.report.class_report import misconceptions, normal_form, slip, stuck_learners
from grader.report.feedback import feedback_html, feedback_view
from grader.report.summary import summary_html
from grader.testing import describe_call
from grader.text import num
from tests.batch_support import LESSONS, UNTOUCHED, WRONG_SQUARE, batch, write_nb
from tests.conftest import SQUARES_SOLVED

IN_SECONDS = "That is what the step time in seconds gives: the question asks for milliseconds: multiply by 1000."


def graded(learner: str, *questions: QuestionResult, score: float = 0.0, errors: tuple[str, ...] = ()) -> Row:
    return Row.of(learner, Report("decode", f"{learner}.ipynb", score, 28.0, questions, errors))


def ms(value: float, status: str = "failed") -> QuestionResult:
    line = f"`ms_per_token` is {value}; expected 14 (milliseconds per decode step; within 1e-06 relative). {IN_SECONDS}"
    return QuestionResult("ms_per_token", 0.0, 2.0, status, (line,))  # type: ignore[arg-type]


def test_misconceptions_are_grouped_by_their_normal_form_and_counted_per_learner() -> None:
    assert slip(ms(0.014).feedback[0]) == IN_SECONDS  # the first sentence (what came back) is not the slip
    assert normal_form("too big by a factor of 1000 (got 14000)") == normal_form("too big by a factor of 1e3 (got 7)")
    rows = [
        graded("ann", ms(0.014)),
        graded("ben", ms(0.0139)),
        graded("cat", ms(0.0141)),
        graded("dan", ms(14, "passed")),
    ]
    rows.append(graded("eve", QuestionResult("ms_per_token", 0.0, 2.0, "not-attempted", ("Not attempted yet.",))))
    found = misconceptions(rows)
    assert [(m.question, m.text, m.learners) for m in found] == [("ms_per_token", IN_SECONDS, ("ann", "ben", "cat"))]


def test_stuck_learners_link_to_their_feedback() -> None:
    idle = QuestionResult("a", 0.0, 1.0, "not-attempted")
    rows = [
        graded("ann", idle, idle, QuestionResult("c", 1.0, 1.0, "passed")),
        graded(
            "ben",
            QuestionResult("a", 0.0, 1.0, "missing"),
            errors=("Cell 2 raised ModuleNotFoundError: No module named 'torch'",),
        ),
        graded("cat", QuestionResult("a", 1.0, 1.0, "passed")),
    ]
    stuck = {s.learner: s for s in stuck_learners(rows)}
    assert set(stuck) == {"ann", "ben"} and stuck["ann"].why == "2 of 3 questions not attempted"
    assert "torch" in stuck["ben"].why and stuck["ben"].feedback == "feedback/ben.html"


def test_numbers_are_written_as_people_write_them() -> None:
    assert [num(10.6667), num(28.0), num(15.0333), num(0.5)] == ["10.67", "28", "15.03", "0.5"]
    assert (
        describe_call("decode_step_seconds", [1.4e10], {"bandwidth": 2039000000000})
        == "decode_step_seconds(1.4e10, bandwidth=2.039e12)"
    )
    rows = [graded("ann", ms(0.014), score=15.0333), graded("ben", ms(0.0139), score=10.6667)]
    html = summary_html(rows, {})
    assert "median 12.85 / 28" in html and "15.0333" not in html
    page = feedback_html(feedback_view(rows[1], None, "full"))
    assert "Score: 10.67 / 28" in page and "<code>ms_per_token</code>" in page  # backticks rendered, the rest escaped


def test_the_end_of_a_batch_is_one_line_that_uses_graded_in_one_sense() -> None:
    rows = (graded("ann", ms(14, "passed"), score=28), Row("ben", "ben.ipynb", "unreadable", "empty"))
    text = format_summary(BatchSummary(Path("out"), "flat folder", rows, 2, 0, 1.0))
    first, *rest = text.splitlines()
    assert first == (
        "2 submissions (flat folder): 2 graded now, 0 unchanged and kept, in 1.0 s; of the 2: 1 ran to the end, "
        "0 timed out, 0 crashed, 1 unreadable; mean score 100% of the maximum."
    )
    assert all(line.startswith(("  note:", "Results in")) for line in rest)


@pytest.mark.slow
def test_summary_names_misconceptions_and_stuck_learners_through_grade_batch(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "out"
    for name in ("bob", "cy", "dee"):
        write_nb(subs / f"{name}.ipynb", WRONG_SQUARE)  # each doubles instead of squaring
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "ike.ipynb", UNTOUCHED)
    write_nb(
        subs / "eve.ipynb",
        ['answer_even = "`<b>x</b>`"', "import torch_is_not_here\ndef square(x):\n    return x * x", SQUARES_SOLVED[2]],
    )
    result = batch(str(subs), "--out", str(out), *LESSONS)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.splitlines()[0].startswith("6 submissions (flat folder): 6 graded now")
        and "graded 5" not in result.stdout
    )
    figures = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [(m["question"], m["count"], m["learners"]) for m in figures["misconceptions"]] == [
        ("square", 3, ["bob", "cy", "dee"])
    ]
    assert "doubling instead of squaring" in figures["misconceptions"][0]["text"]
    stuck = {s["learner"]: s for s in figures["stuck"]}
    assert set(stuck) == {"eve", "ike"} and "torch_is_not_here" in stuck["eve"]["why"]
    html = (out / "summary.html").read_text(encoding="utf-8")
    assert "doubling instead of squaring" in html and '<a href="feedback/ike.html">ike</a>' in html
    assert all((out / s["feedback"]).is_file() for s in figures["stuck"])
    eve = (out / "feedback" / "eve.html").read_text(encoding="utf-8")
    assert (
        "<code>&lt;b&gt;x&lt;/b&gt;</code>" in eve and "<b>x</b>" not in eve
    )  # markdown rendered, learner text escaped


def test_integrity_has_its_own_sections_and_flagged_notebooks_are_no_misconception(tmp_path: Path) -> None:
    """A copied Part 1 is said at the top of the summary, the chapter and the learner's page, not under "stuck"
    nor as a slip under each question, and its answers are not counted as what the class misunderstood."""
    from grader.batch.chapter import LessonColumn, chapter_of, reteach_first, reteach_markdown
    from grader.report.class_report import class_report, integrity_html, report_html

    copied = (
        "Every answer that uses your numbers where they differ from another learner's numbers (ms_per_token) is "
        "right for another learner's numbers (tb_per_s = 4.8), not for yours (tb_per_s = 3.35): work them on "
        "your own numbers."
    )
    rows = [graded("ann", ms(0.014)), graded("cy", ms(0.02), errors=(copied,)), graded("dan", ms(14, "passed"))]
    assert [m.learners for m in misconceptions(rows)] == [("ann",)]
    report = class_report(rows)
    assert [f.learner for f in report.flagged] == ["cy"] and "cy" not in {s.learner for s in report.stuck}
    html = summary_html(rows, {}, report_html(report), integrity_html(report))
    assert html.index("Integrity") < html.index("What to re-teach") and "right for another learner" in html
    page = feedback_html(feedback_view(rows[1], None, "learner"))
    assert page.index("Whose work this is") < page.index("<table>") and "While your notebook ran" not in page
    column = LessonColumn("decode", "Decode", 28.0)
    order = reteach_first([(column, rows)])
    assert order[0].graded == 2 and order[0].misconceptions[0][2] == 1  # cy counts in neither
    text = reteach_markdown(chapter_of([(column, rows)]), order)
    assert text.index("## Integrity") < text.index("## What to re-teach") and "`decode` cy: Every answer" in text
