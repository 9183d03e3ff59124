"""Grades an LMS imports as they are: each layout against its documented columns, and end to end through
``grade batch --export`` on a Canvas-style and a Moodle-style zip, and through ``grade export``.

The layouts (README, "Grades your LMS imports"): Canvas's gradebook import (Student, ID, SIS User ID, SIS
Login ID, Section, then "Assignment (id)"), the Moodle assignment's grading worksheet (Identifier
"Participant <id>", Full name, Grade, Maximum Grade), Blackboard's Grade Center upload (Last Name, First
Name, Username, then "Name [Total Pts: N Score] |id").
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from grader.batch.lms import Column, export_text, grades_csv, row_reason
from grader.batch.names import Identity, lms_names
from grader.batch.rows import Row
from grader.model import QuestionResult, Report
from tests.batch_support import LESSONS, WRONG_SQUARE, batch, grades, results, write_nb
from tests.conftest import SQUARES_SOLVED, run_grade

RAISES_FIRST = [SQUARES_SOLVED[0], "import torch_is_not_here\ndef square(x):\n    return x * x", SQUARES_SOLVED[2]]
COLUMN = Column("Squares", 5.0)


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def row(learner: str, score: float, identity: Identity, status: str = "graded", errors: tuple[str, ...] = ()) -> Row:
    report = Report(
        "squares",
        f"{learner}.ipynb",
        score,
        5.0,
        (QuestionResult("square", score, 5.0, "partial"),),
        errors,
        status=status,
    )  # type: ignore[arg-type]
    return Row(learner, report.path, report.status, "", report, False, identity)


ADA = Identity("Canvas", "12345", "lovelaceada")


def test_canvas_layout_is_its_gradebook_import() -> None:
    rows = table(export_text([row("lovelaceada_12345", 10.6667, ADA)], Column("Decode (4711)", 28), "canvas"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Decode (4711)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "28"]  # as Canvas's own export has it
    assert rows[2] == ["lovelaceada", "12345", "", "", "", "10.67"]  # keyed on the Canvas id, two decimals


def test_moodle_layout_is_the_grading_worksheet() -> None:
    who = Identity("Moodle", "4711", "Ada Lovelace")
    rows = table(export_text([row("Ada_Lovelace_4711", 3, who)], COLUMN, "moodle"))
    assert rows == [
        ["Identifier", "Full name", "Grade", "Maximum Grade"],
        ["Participant 4711", "Ada Lovelace", "3", "5"],
    ]


def test_blackboard_layout_is_the_grade_center_upload() -> None:
    who = Identity("Blackboard", "alovelace", "alovelace")
    new = table(export_text([row("alovelace", 4.5, who)], COLUMN, "blackboard"))
    assert new == [
        ["Last Name", "First Name", "Username", "Squares [Total Pts: 5 Score]"],
        ["", "", "alovelace", "4.5"],
    ]
    existing = table(
        export_text([row("alovelace", 4.5, who)], Column("Squares [Total Pts: 5 Score] |664617", 5), "blackboard")
    )
    assert (
        existing[0][3] == "Squares [Total Pts: 5 Score] |664617"
    )  # an existing column's header, as Blackboard wrote it


def test_a_crashed_grading_is_left_empty_never_a_zero() -> None:
    rows = table(export_text([row("lovelaceada_12345", 0, ADA, status="crashed")], COLUMN, "canvas"))
    assert rows[2][5] == ""


def test_an_lms_export_refuses_learners_the_lms_cannot_match() -> None:
    from grader.errors import UsageError

    with pytest.raises(UsageError, match="Moodle id"):
        export_text([row("ada", 5, Identity())], COLUMN, "moodle")
    assert table(export_text([row("ada", 5, Identity())], COLUMN, "csv"))[1][0] == "ada"  # plain csv takes anyone


def test_identity_is_kept_apart_from_the_display_name() -> None:
    canvas = lms_names(["lovelaceada_LATE_12345_67890_decode"])
    moodle = lms_names(["Ada Lovelace_4711_assignsubmission_file_decode"])
    blackboard = lms_names(["Decode_alovelace_attempt_2024-03-01-09-30-00_decode"])
    assert canvas and canvas[1][0].identity == Identity("Canvas", "12345", "lovelaceada") and canvas[1][0].late
    assert moodle and moodle[1][0].identity == Identity("Moodle", "4711", "Ada Lovelace")
    assert blackboard and blackboard[1][0].identity == Identity("Blackboard", "alovelace", "alovelace")
    assert canvas[1][0].learner == "lovelaceada_12345"  # the learner id still tells two namesakes apart


def test_grades_csv_has_late_and_the_error_that_cost_points() -> None:
    error = "Cell 3 raised ModuleNotFoundError: No module named 'torch'"
    lost = row("alan", 3, Identity(), errors=(error,))
    kept = row("ada", 5, Identity(), errors=(error,))
    assert row_reason(lost) == error and row_reason(kept) == ""  # an error that cost nothing is not a reason
    hung = QuestionResult("generate", 0.0, 4.0, "error", ("generate(next_token, [1], 2) did not return in time.",))
    assert (
        row_reason(Row.of("bea", Report("squares", "bea.ipynb", 1.0, 5.0, (hung,))))
        == "generate: generate(next_token, [1], 2) did not return in time."
    )
    header, *lines = table(grades_csv([lost]))
    assert header[:9] == ["learner", "name", "lms", "lms_id", "score", "max_score", "late", "status", "reason"]
    assert lines[0][6] == "no" and "ModuleNotFoundError" in lines[0][8]


def _zip(folder: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*.ipynb")):
            zf.write(path, path.relative_to(folder).as_posix())
    return archive


@pytest.mark.slow
def test_canvas_zip_to_canvas_import_through_grade_batch(tmp_path: Path) -> None:
    subs = tmp_path / "canvas"
    write_nb(subs / "lovelaceada_12345_67890_squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "hoppergrace_LATE_23456_67891_squares.ipynb", WRONG_SQUARE)
    write_nb(subs / "turingalan_34567_67892_squares.ipynb", RAISES_FIRST)
    out = tmp_path / "out"
    result = batch(
        str(_zip(subs, tmp_path / "canvas.zip")),
        "--out",
        str(out),
        *LESSONS,
        "--export",
        "canvas",
        "--export-name",
        "Squares (998)",
    )
    assert result.returncode == 0, result.stderr
    assert "canvas import file" in result.stdout
    header, points, *lines = table((out / "canvas-import.csv").read_text(encoding="utf-8"))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Squares (998)"] and points[5] == "5"
    assert {(line[0], line[1], line[5]) for line in lines} == {
        ("lovelaceada", "12345", "5"),
        ("hoppergrace", "23456", "3"),
        ("turingalan", "34567", "3"),
    }
    rows = grades(out)
    assert rows["hoppergrace_23456"]["late"] == "yes" and rows["lovelaceada_12345"]["late"] == "no"
    assert (rows["lovelaceada_12345"]["name"], rows["lovelaceada_12345"]["lms_id"]) == ("lovelaceada", "12345")
    assert (
        "ModuleNotFoundError" in rows["turingalan_34567"]["reason"]
        and "torch_is_not_here" in rows["turingalan_34567"]["reason"]
    )
    assert results(out)["lovelaceada_12345"]["lms_id"] == "12345"
    # the same grades again, from the results folder alone
    csv_file = tmp_path / "plain.csv"
    exported = run_grade("export", str(out), "--to", "csv", "-o", str(csv_file), *LESSONS)
    assert exported.returncode == 0, exported.stderr
    assert csv_file.read_text(encoding="utf-8") == (out / "grades.csv").read_text(encoding="utf-8")
    refused = run_grade("export", str(out), "--to", "moodle")
    assert refused.returncode == 2 and "Moodle id" in refused.stderr
    # grace resubmits; a rerun without --export keeps the import file the first run asked for up to date
    write_nb(subs / "hoppergrace_LATE_23456_67891_squares.ipynb", SQUARES_SOLVED)
    rerun = batch(str(_zip(subs, tmp_path / "canvas2.zip")), "--out", str(out), *LESSONS, "--only", "hoppergrace_23456")
    assert rerun.returncode == 0 and "as the earlier run asked" in rerun.stdout, rerun.stdout
    header, _, *lines = table((out / "canvas-import.csv").read_text(encoding="utf-8"))
    assert header[5] == "Squares (998)" and ["hoppergrace", "23456", "", "", "", "5"] in lines


@pytest.mark.slow
def test_moodle_zip_to_moodle_worksheet_through_grade_batch_and_grade_export(tmp_path: Path) -> None:
    subs = tmp_path / "moodle"
    write_nb(subs / "Ada Lovelace_4711_assignsubmission_file_" / "work" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "Grace Hopper_4712_assignsubmission_file_" / "squares.ipynb", WRONG_SQUARE)
    out = tmp_path / "out"
    result = batch(str(_zip(subs, tmp_path / "moodle.zip")), "--out", str(out), *LESSONS, "--export", "moodle")
    assert result.returncode == 0, result.stderr
    lines = table((out / "moodle-import.csv").read_text(encoding="utf-8"))
    assert lines[0] == ["Identifier", "Full name", "Grade", "Maximum Grade"]
    assert sorted(lines[1:]) == [
        ["Participant 4711", "Ada Lovelace", "5", "5"],
        ["Participant 4712", "Grace Hopper", "3", "5"],
    ]
    bb = tmp_path / "bb.csv"
    refused = run_grade("export", str(out), "--to", "blackboard", "-o", str(bb))
    assert refused.returncode == 2 and not bb.exists()  # Blackboard matches usernames, which a Moodle download lacks
    again = run_grade("export", str(out), "--to", "moodle", "-o", str(tmp_path / "again.csv"))
    assert again.returncode == 0 and (tmp_path / "again.csv").read_text(encoding="utf-8") == (
        out / "moodle-import.csv"
    ).read_text(encoding="utf-8")
