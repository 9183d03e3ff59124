"""The batch's stored and written results, from synthetic reports: gradebook, CSV, JSONL, feedback, summary."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.batch.fingerprint import suites_fingerprint
from grader.batch.gradebook import Gradebook
from grader.batch.model import Row
from grader.batch.outputs import grades_csv, write_outputs
from grader.lessons import load_lesson
from grader.model import QuestionResult, Report
from grader.report import report_to_dict
from grader.report.feedback import feedback_html, feedback_markdown, feedback_view
from grader.report.rows import row_from_dict, row_to_dict
from grader.report.summary import summary_html
from tests.conftest import FIXTURE_LESSONS

LESSON = load_lesson("squares", FIXTURE_LESSONS)
SECRET = "square(3) returned 6; expected 9 (within 1e-06 relative)."
HOSTILE = "answer_even is '</li><script>alert(1)</script>', which is not right."


def report(
    square: QuestionResult, answer: QuestionResult | None = None, status: str = "graded", errors: tuple[str, ...] = ()
) -> Report:
    answer = answer or QuestionResult("answer_even", 1.0, 1.0, "passed", ("The check passed.",))
    questions = (answer, square, QuestionResult("sum_of_squares", 2.0, 2.0, "passed", ("All 2 checks passed.",)))
    return Report(
        "squares", "x.ipynb", sum(q.score for q in questions), 5.0, questions, errors, "process limits", "d", status
    )  # type: ignore[arg-type]


PASSED = QuestionResult("square", 2.0, 2.0, "passed", ("All 2 checks passed.",))
WRONG = QuestionResult("square", 0.0, 2.0, "failed", (SECRET,))
ROWS = [
    Row.of("ada", report(PASSED)),
    Row.of(
        "bob",
        report(
            WRONG,
            QuestionResult("answer_even", 0.0, 1.0, "failed", (HOSTILE,)),
            errors=("Cell 2 raised ValueError: x (`boom`); the cells after it still ran.",),
        ),
    ),
    Row.of("cy", report(WRONG)),
    Row(
        "dee",
        "dee.ipynb",
        "unreadable",
        "dee.ipynb is empty; save your notebook in Jupyter and submit it again.",
        None,
        late=True,
    ),
]


def test_a_row_round_trips_through_its_json_line() -> None:
    for row in ROWS:
        digest = row.report.digest if row.report else ""
        assert row_from_dict(json.loads(json.dumps(row_to_dict(row))), digest) == row


def test_a_results_line_is_what_grade_json_prints_plus_the_learner() -> None:
    line = row_to_dict(ROWS[1])
    assert line == {
        "learner": "bob",
        "late": False,
        "lms": "",
        "lms_id": "",
        "name": "",
        **report_to_dict(ROWS[1].report, staff=True),
    }  # type: ignore[arg-type]
    assert row_to_dict(ROWS[3])["status"] == "unreadable" and row_to_dict(ROWS[3])["max_score"] is None


def test_grades_csv_has_a_column_per_question() -> None:
    lines = grades_csv(ROWS).splitlines()
    assert lines[0] == (
        "learner,name,lms,lms_id,score,max_score,late,status,reason,raw_score,late_days,late_penalty,due,submitted,"
        "answer_even,square,sum_of_squares"
    )
    assert lines[1] == "ada,,,,5,5,no,graded,,5,,,,,1,2,2"
    assert lines[2].startswith("bob,,,,2,5,no,graded,Cell 2 raised ValueError") and lines[2].endswith(
        ",0,0,2"
    )  # the error that cost points
    # dee's file could not be graded: no score (a blank, not a 0), the reason beside it
    assert lines[4].startswith("dee,,,,,,yes,unreadable,dee.ipynb is empty") and lines[4].endswith(",,,")


def test_the_gradebook_keeps_every_grading_and_answers_with_the_latest(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "g.sqlite") as book:
        run = book.start_run("subs")
        book.record(run, ROWS[2], "digest-1", "suites-1")
        assert book.is_current("cy", "digest-1", "suites-1")
        assert not book.is_current("cy", "digest-2", "suites-1") and not book.is_current("cy", "digest-1", "suites-2")
        book.record(run, ROWS[0], "digest-2", "suites-1")
        book.record(run, Row.of("cy", report(PASSED)), "digest-2", "suites-1")
        assert [r.score for r in book.latest(["cy", "ada", "nobody"])] == [5.0, 5.0]
        book.record(run, Row.of("eve", report(PASSED, status="crashed")), "digest-3", "suites-1")
        assert not book.is_current("eve", "digest-3", "suites-1")  # a crash may be the machine's fault: retried
        book.finish_run(run)
        assert not book.previous_run_unfinished(book.start_run("subs"))
    db = sqlite3.connect(tmp_path / "g.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    grades = db.execute(
        "SELECT learner, question, score, digest, suites_hash, grader_version, graded_at FROM grades "
        "WHERE learner = 'cy' ORDER BY graded_at, score"
    ).fetchall()
    assert len(grades) == 6 and {g[1] for g in grades} == {"answer_even", "square", "sum_of_squares"}
    assert all(g[4] == "suites-1" and g[5] and g[6] for g in grades)


def test_full_feedback_teaches_and_summary_feedback_hides_the_tests() -> None:
    full = feedback_markdown(feedback_view(ROWS[2], LESSON, "full"))
    assert SECRET in full and "Hint: Multiply the number by itself." in full
    summary_md = feedback_markdown(feedback_view(ROWS[2], LESSON, "summary"))
    summary_html_text = feedback_html(feedback_view(ROWS[2], LESSON, "summary"))
    for text in (summary_md, summary_html_text):
        assert "square(3)" not in text and "returned 6" not in text
        assert "Not right yet" in text and "Multiply the number by itself." in text and "0 / 2" in text


def test_feedback_html_is_self_contained_and_escaped() -> None:
    html = feedback_html(feedback_view(ROWS[1], LESSON, "full"))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert not re.search(r"(src|href)=", html) and "http" not in html
    assert "Cell 2 raised ValueError" in html


def test_an_unreadable_file_gets_feedback_that_says_why() -> None:
    md = feedback_markdown(feedback_view(ROWS[3], None, "full"))
    assert "could not be graded" in md and "dee.ipynb is empty" in md and "Not graded" in md


def test_the_summary_shows_charts_and_the_most_common_failure() -> None:
    html = summary_html(ROWS, {"squares": LESSON})
    svgs = re.findall(r"<svg.*?</svg>", html, flags=re.S)
    assert len(svgs) == 2
    for svg in svgs:
        ET.fromstring(svg)  # well-formed inline SVG
    assert "<script" not in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "6 learners" not in html and "2 learners" in html and "square(3) returned 6" in html
    assert "1 unreadable" in html and "dee.ipynb is empty" in html


def test_outputs_are_written_whole_and_stale_feedback_goes(tmp_path: Path) -> None:
    (tmp_path / "feedback").mkdir()
    (tmp_path / "feedback" / "gone.html").write_text("old")
    write_outputs(tmp_path, ROWS, {"squares": LESSON}, "full")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "feedback",
        "grades.csv",
        "results.jsonl",
        "summary.html",
        "summary.json",
    ]
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == sorted(
        f"{r.learner}{s}" for r in ROWS for s in (".html", ".md")
    )
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 4


@pytest.mark.parametrize("change", ["suite", "definition", "solution"])
def test_the_suites_fingerprint_changes_with_anything_grading_depends_on(tmp_path: Path, change: str) -> None:
    shutil.copytree(FIXTURE_LESSONS / "squares", tmp_path / "squares")
    lesson = load_lesson("squares", tmp_path)
    before = suites_fingerprint(lesson)
    assert suites_fingerprint(lesson) == before
    (lesson.suites / "__pycache__").mkdir(exist_ok=True)
    (lesson.suites / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert suites_fingerprint(lesson) == before  # bytecode caches do not count
    target = {
        "suite": lesson.suites / "test_squares.py",
        "definition": lesson.root / "lesson.toml",
        "solution": lesson.solution,
    }[change]
    target.write_text(target.read_text() + "\n")
    assert suites_fingerprint(lesson) != before


def test_a_timed_out_notebook_is_told_why_once() -> None:
    """The reason is a sentence of its own ("Your notebook ran longer..."): the note does not repeat its start."""
    reason = "Your notebook ran longer than 3 s and was stopped in cell 3: `while True:`. Look there."
    view = feedback_view(Row("eve", "eve.ipynb", "timed-out", reason, report(WRONG)), None, "learner")
    assert view.note.startswith(reason) and view.note.count("Your notebook") == 1, view.note
