"""``grade batch`` end to end: every layout, every output file, reruns, hostile notebooks, the Decode lesson.

Most runs use the tiny squares lesson (tests/fixtures/lessons) for speed; one grades the bundled Decode
examples (examples/submissions) the way the README's worked example does.
"""

from __future__ import annotations

import multiprocessing
import shutil
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from grader.batch import BatchOptions, run_batch
from grader.errors import UsageError
from grader.pipeline import GradeOptions
from tests.batch_support import (
    KILLS_ITS_PARENT,
    LESSONS,
    LOOPS_FOREVER,
    SOLVED_SCORES,
    UNTOUCHED,
    WRONG_SCORES,
    WRONG_SQUARE,
    ZERO_SCORES,
    batch,
    grades,
    question_scores,
    results,
    write_nb,
)
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED

HOSTILE_TEXT = 'answer_even = "</td><script>alert(1)</script>"'


def executor_of(workers: int) -> ProcessPoolExecutor:
    """A plain executor someone else owns (as a Dask cluster's would be), with no initializer of ours."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


@pytest.fixture(scope="module")
def mixed_class(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """A flat folder with every kind of submission, graded once by the real command."""
    root = tmp_path_factory.mktemp("mixed")
    subs = root / "subs"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "bob.ipynb", WRONG_SQUARE)
    write_nb(subs / "cy.ipynb", LOOPS_FOREVER)
    write_nb(subs / "dee.ipynb", KILLS_ITS_PARENT)
    write_nb(subs / "eve.ipynb", [HOSTILE_TEXT, *SQUARES_SOLVED[1:]])
    (subs / "fay.ipynb").write_text("my answers are in my other file")
    write_nb(subs / "gus.ipynb", SQUARES_SOLVED, lesson="cooking")
    write_nb(subs / "ike.ipynb", UNTOUCHED)
    out = root / "results"
    return batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "2", "--jobs", "2"), out


@pytest.mark.slow
def test_every_submission_gets_a_row_and_the_batch_exits_0(mixed_class: tuple[Any, Path]) -> None:
    result, out = mixed_class
    assert result.returncode == 0, result.stderr
    rows = grades(out)
    assert {k: v["status"] for k, v in rows.items() if k != "dee"} == {
        "ada": "graded",
        "bob": "graded",
        "cy": "timed-out",
        "eve": "graded",
        "fay": "unreadable",
        "gus": "unreadable",
        "ike": "graded",
    }
    # Killing its parent either kills the process grading it (process isolation) or nothing it may touch.
    assert rows["dee"]["status"] == "crashed" or rows["dee"]["score"] == "5"
    assert "longer than 2 s" in rows["cy"]["reason"] and "while True" in rows["cy"]["reason"]
    assert "not a readable Jupyter notebook" in rows["fay"]["reason"]
    # gus's notebook says it is for another lesson: reported so, no score (blank, not 0) on this batch's lesson,
    # not graded on its own
    assert "for lesson 'cooking', not 'squares'" in rows["gus"]["reason"] and (
        rows["gus"]["score"],
        rows["gus"]["max_score"],
    ) == ("", "5")
    assert "[8/8]" in result.stderr and "8 submissions (flat folder): 8 graded now" in result.stdout
    assert "Traceback" not in result.stderr, result.stderr  # nothing in any process failed unhandled


@pytest.mark.slow
def test_grades_csv_has_scores_per_question(mixed_class: tuple[Any, Path]) -> None:
    _, out = mixed_class
    header = (out / "grades.csv").read_text().splitlines()[0]
    assert header == (
        "learner,name,lms,lms_id,score,max_score,late,status,reason,raw_score,late_days,late_penalty,due,submitted,"
        "answer_even,square,sum_of_squares"
    )
    rows = grades(out)
    assert {q: float(rows["bob"][q]) for q in WRONG_SCORES} == WRONG_SCORES
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("5", "5")
    assert {q: float(rows["fay"][q]) for q in ZERO_SCORES} == ZERO_SCORES  # unreadable, but its lesson is known


@pytest.mark.slow
def test_results_jsonl_holds_what_grade_json_prints(mixed_class: tuple[Any, Path]) -> None:
    _, out = mixed_class
    lines = results(out)
    assert set(lines) == {"ada", "bob", "cy", "dee", "eve", "fay", "gus", "ike"}
    assert question_scores(lines["ada"]) == SOLVED_SCORES and lines["ada"]["status"] == "graded"
    assert {q["status"] for q in lines["ike"]["questions"]} == {"not-attempted"}
    assert set(lines["ada"]) == {
        "learner",
        "late",
        "submitted",  # a flat folder's notebook: the file's time, for the late policy
        "lms",
        "lms_id",
        "name",
        "lesson",
        "path",
        "score",
        "max_score",
        "status",
        "questions",
        "errors",
        "isolation",
    }
    assert lines["gus"]["status"] == "unreadable" and question_scores(lines["gus"]) == ZERO_SCORES


@pytest.mark.slow
def test_feedback_is_written_for_every_learner_and_escaped(mixed_class: tuple[Any, Path]) -> None:
    _, out = mixed_class
    names = sorted(p.name for p in (out / "feedback").iterdir())
    assert names == sorted(
        f"{n}{s}" for n in ("ada", "bob", "cy", "dee", "eve", "fay", "gus", "ike") for s in (".html", ".md")
    )
    bob = (out / "feedback" / "bob.md").read_text()
    assert "square(3) returned 6" in bob and "Hint: Multiply the number by itself." in bob
    eve = (out / "feedback" / "eve.html").read_text()
    assert "<script>" not in eve and "&lt;script&gt;" in eve
    assert "did not finish running" in (out / "feedback" / "cy.html").read_text()


@pytest.mark.slow
def test_the_summary_page_has_charts_and_the_common_failures(mixed_class: tuple[Any, Path]) -> None:
    _, out = mixed_class
    html = (out / "summary.html").read_text()
    assert html.count("<svg") == 2 and "<script" not in html
    assert "square(3) returned 6" in html and "Not graded normally" in html


@pytest.mark.slow
def test_a_rerun_skips_what_is_unchanged_and_regrade_grades_everything(tmp_path: Path) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    write_nb(subs / "bob.ipynb", WRONG_SQUARE)
    args = (str(subs), "--out", str(out), *LESSONS, "--jobs", "1")
    assert batch(*args).returncode == 0
    again = batch(*args)
    assert again.returncode == 0 and "0 graded now, 2 unchanged and kept" in again.stdout
    write_nb(subs / "bob.ipynb", SQUARES_SOLVED)  # bob fixes his notebook
    fixed = batch(*args)
    assert "1 graded now, 1 unchanged" in fixed.stdout and grades(out)["bob"]["score"] == "5"
    forced = batch(*args, "--regrade")
    assert "2 graded now, 0 unchanged" in forced.stdout
    import sqlite3

    db = sqlite3.connect(out / "gradebook.sqlite")
    assert db.execute("SELECT learner, count(*) FROM gradings GROUP BY learner ORDER BY learner").fetchall() == [
        ("ada", 2),
        ("bob", 3),
    ]


@pytest.mark.slow
def test_a_zipped_canvas_download_is_graded_with_ids_from_the_names(tmp_path: Path) -> None:
    folder = tmp_path / "download"
    write_nb(folder / "lovelaceada_101_9001_squares.ipynb", SQUARES_SOLVED)
    write_nb(folder / "hoppergrace_LATE_102_9002_squares-1.ipynb", WRONG_SQUARE)
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in folder.iterdir():
            zf.write(path, f"submissions/{path.name}")
    out = tmp_path / "results"
    result = batch(str(archive), "--out", str(out), *LESSONS)
    assert result.returncode == 0, result.stderr
    assert "Canvas download" in result.stdout
    lines = results(out)
    assert {k: (v["score"], v["late"]) for k, v in lines.items()} == {
        "lovelaceada_101": (5.0, False),
        "hoppergrace_102": (3.0, True),
    }
    assert lines["lovelaceada_101"]["path"] == str(archive / "submissions" / "lovelaceada_101_9001_squares.ipynb")


@pytest.mark.slow
def test_an_nbgrader_course_is_graded_on_any_executor(tmp_path: Path) -> None:
    course = tmp_path / "course"
    write_nb(course / "submitted" / "ada" / "ps1" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(
        course / "submitted" / "bob" / "ps1" / "squares.ipynb", WRONG_SQUARE, lesson=None
    )  # no metadata: the only lesson
    write_nb(course / "submitted" / "bob" / "ps0" / "warmup.ipynb", UNTOUCHED)
    options = BatchOptions(GradeOptions(lessons_root=FIXTURE_LESSONS), assignment="ps1")
    with executor_of(2) as executor:
        summary = run_batch(course, tmp_path / "results", options, executor)
    assert summary.layout == "nbgrader course"
    assert {r.learner: r.score for r in summary.rows} == {"ada": 5.0, "bob": 3.0}


@pytest.mark.slow
def test_nbgrader_db_hands_the_reports_to_the_nbgrader_integration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grader.integrations import nbgrader

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(nbgrader, "require_nbgrader", lambda: None)
    monkeypatch.setattr(
        nbgrader, "export_to_gradebook", lambda url, lesson, rows, **kw: calls.append((url, lesson.id, rows, kw))
    )
    write_nb(tmp_path / "subs" / "ada.ipynb", SQUARES_SOLVED)
    (tmp_path / "subs" / "fay.ipynb").write_text("not a notebook")
    options = BatchOptions(GradeOptions(lessons_root=FIXTURE_LESSONS), nbgrader_db="sqlite:///gradebook.db")
    with executor_of(1) as executor:
        run_batch(tmp_path / "subs", tmp_path / "results", options, executor)
    ((url, lesson_id, rows, kw),) = calls
    assert (url, lesson_id, kw) == ("sqlite:///gradebook.db", "squares", {})
    # fay's file is not a notebook: no grade in nbgrader's gradebook either (blank by default), not a 0
    assert [(learner, report.score) for learner, report in rows] == [("ada", 5.0)]

    def not_installed() -> None:
        raise ModuleNotFoundError("No module named 'nbgrader'", name="nbgrader")

    monkeypatch.setattr(nbgrader, "require_nbgrader", not_installed)
    with pytest.raises(UsageError, match="pip install nbgrader"):
        run_batch(tmp_path / "subs", tmp_path / "results", options)


@pytest.mark.slow
def test_bad_usage_exits_2(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert batch(str(tmp_path / "empty"), "--out", str(tmp_path / "r"), *LESSONS).returncode == 2
    assert batch(str(tmp_path / "nowhere"), "--out", str(tmp_path / "r")).returncode == 2
    assert (
        batch(str(tmp_path / "empty"), "--out", str(tmp_path / "r"), "--jobs", "2", "--dask", "tcp://x:1").returncode
        == 2
    )
    broken_lesson = batch(str(REPO / "examples" / "submissions"), "--out", str(tmp_path / "r"), "--lesson", "cooking")
    assert broken_lesson.returncode == 1 and "no lesson 'cooking'" in broken_lesson.stderr


@pytest.mark.slow
def test_the_bundled_decode_examples_end_to_end(tmp_path: Path) -> None:
    """The README's worked example, with summary feedback: each realistic mistake costs its own questions."""
    out = tmp_path / "results"
    result = batch(
        str(REPO / "examples" / "submissions"),
        "--out",
        str(out),
        "--timeout",
        "5",
        "--feedback",
        "summary",
        "--lesson",
        "decode",
    )
    assert result.returncode == 0, result.stderr
    rows = results(out)
    assert {k: v["status"] for k, v in rows.items()} == {
        "ada": "graded",
        "alan": "graded",
        "barbara": "unreadable",
        "edsger": "timed-out",
        "grace": "graded",
        "katherine": "graded",
        "linus": "graded",
    }
    full = {q["id"]: q["max_score"] for q in rows["ada"]["questions"]}
    assert question_scores(rows["ada"]) == full and rows["ada"]["score"] == 35.0
    lost = {k: {q for q, s in question_scores(v).items() if s < full[q]} for k, v in rows.items() if v["questions"]}
    assert lost["grace"] == {"gb_per_step", "ms_per_token", "decode_step_seconds"}
    assert lost["alan"] == {"answer_sequential", "max_tokens_per_s", "generate", "request_time"}
    assert lost["katherine"] == {
        "call_order_is_sequential",
        "answer_batching_bug",
        "batch_throughput",
        "kv_decode_time",
    }
    assert lost["linus"] == set(full) and lost["edsger"] == set(full)
    for md in (out / "feedback").glob("*.md"):
        assert " returned " not in md.read_text(), md.name  # summary feedback never shows what a test called
    assert "Hint:" in (out / "feedback" / "alan.md").read_text()
    shutil.rmtree(out)


@pytest.mark.parametrize(
    "variable, value, said",
    [
        ("GRADER_WORKERS", "clone", "GRADER_WORKERS='clone' is not a way to start workers; use one of fork, spawn."),
        (
            "GRADER_ISOLATION",
            "docker",
            "GRADER_ISOLATION='docker' is not an isolation level; use one of auto, bubblewrap, process.",
        ),
    ],
)
def test_a_bad_setting_stops_the_batch_before_it_grades_anyone(
    variable: str, value: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subs, out = tmp_path / "subs", tmp_path / "results"
    write_nb(subs / "ada.ipynb", SQUARES_SOLVED)
    monkeypatch.setenv(variable, value)
    result = batch(str(subs), "--out", str(out), *LESSONS)
    assert result.returncode == 2 and said in result.stderr
    assert not out.exists()  # no row of "crashed" learners to mistake for results
