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
import re
import zipfile
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader.batch.lms import check_export, export_text, grades_csv, write_export
from grader.batch.lms_table import lms_names
from grader.batch.model import Identity, Row, row_reason
from grader.batch.sheet import Column, MoodleWords, header_word
from grader.errors import UsageError
from grader.model import QuestionResult, Report, ReportStatus
from tests import lms_rules
from tests.batch_support import LESSONS, UNTOUCHED, WRONG_SQUARE, batch, grades, write_nb
from tests.conftest import SQUARES_SOLVED, run_grade

RAISES_FIRST = [SQUARES_SOLVED[0], "import torch_is_not_here\ndef square(x):\n    return x * x", SQUARES_SOLVED[2]]
COLUMN = Column("Squares", 5.0)


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def row(
    learner: str, score: float, identity: Identity, status: ReportStatus = "graded", errors: tuple[str, ...] = ()
) -> Row:
    report = Report(
        "squares",
        f"{learner}.ipynb",
        score,
        5.0,
        (QuestionResult("square", score, 5.0, "partial"),),
        errors,
        status=status,
    )
    return Row(learner, report.path, report.status, "", report, False, identity)


ADA = Identity("Canvas", "12345", "lovelaceada")


def test_canvas_layout_is_its_gradebook_import() -> None:
    rows = table(export_text([row("lovelaceada_12345", 10.6667, ADA)], Column("Decode (4711)", 28), "canvas"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Decode (4711)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "28"]  # as Canvas's own export has it
    assert rows[2] == ["lovelaceada", "12345", "", "", "", "10.67"]  # keyed on the Canvas id, two decimals
    text = export_text([row("lovelaceada_12345", 10.6667, ADA)], Column("Decode (4711)", 28), "canvas")
    found = lms_rules.canvas(text, {"12345"})
    assert found.grades == {"12345": 10.67} and not found.new_column


NOW = datetime(2026, 12, 1, 22, 0, tzinfo=timezone.utc)


def test_moodle_layout_is_the_grading_worksheet_its_importer_accepts() -> None:
    who = Identity("Moodle", "4711", "Ada Lovelace")
    text = export_text([row("Ada_Lovelace_4711", 3, who)], COLUMN, "moodle", now=NOW)
    assert table(text) == [
        ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"],
        ["Participant 4711", "Ada Lovelace", "3", "5", "2026-12-01T22:00:00+00:00"],
    ]
    graded_before = NOW.timestamp() - 3600  # a grade Moodle already holds, from before the export
    assert lms_rules.moodle(text.encode(), {"4711": graded_before}, 5).grades == {"4711": 3.0}
    # a grade changed in Moodle after the export is kept there (unless "ignore modified" is ticked)
    assert lms_rules.moodle(text.encode(), {"4711": NOW.timestamp() + 3600}, 5).unchanged == {"4711"}


def test_moodle_refuses_a_worksheet_without_its_three_words_and_skips_a_blank_last_modified() -> None:
    """What the old file (Identifier, Full name, Grade, Maximum Grade) met in Moodle: the checks must fail it."""
    old = "Identifier,Full name,Grade,Maximum Grade\nParticipant 4711,Ada Lovelace,3,5\n"
    with pytest.raises(lms_rules.Refused, match="invalidgradeimport"):
        lms_rules.moodle(old.encode(), {"4711": None}, 5)
    blank = old.replace("Maximum Grade", "Maximum Grade,Last modified (grade)").replace(",5", ",5,")
    assert lms_rules.moodle(blank.encode(), {"4711": 1.7e9}, 5).unchanged == {"4711"}  # graded once: skipped


def test_moodle_words_follow_the_site_language() -> None:
    words = MoodleWords.parse("Identifiant|Participant |Note|Dernière modification (note)")
    who = Identity("Moodle", "4711", "Ada Lovelace")
    text = export_text([row("ada", 4, who)], COLUMN, "moodle", now=NOW, words=words)
    french = ("Identifiant", "Participant ", "Note", "Dernière modification (note)")
    assert lms_rules.moodle(text.encode(), {"4711": None}, 5, french).grades == {"4711": 4.0}
    with pytest.raises(UsageError, match="four words"):
        MoodleWords.parse("Identifiant|Note")


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("Identifier|Participant |Grade|Grade", "two columns named 'Grade'"),
        ("Identifier|Participant |full name|Last modified (grade)", "two columns named 'Full name', 'full name'"),
        ("Identifier|Participant |Grade|", "four words"),
        ("Identifier| |Grade|Last modified (grade)", "four words"),
        ("Identifier|Participant |Gra\nde|Last modified (grade)", "control character"),
    ],
)
def test_moodle_words_that_would_name_two_columns_alike_or_hold_controls_are_refused(given: str, says: str) -> None:
    """Moodle's importer finds its columns by these words: two alike, an empty one or a broken line misreads."""
    with pytest.raises(UsageError, match=re.escape(says)):
        MoodleWords.parse(given)


@pytest.mark.parametrize("bad", ["Decode\nInjected,Row", "Decode\r", "De\x00code", "\u202eedoceD", "Dec\u2028ode", " "])
def test_a_header_with_a_newline_or_control_character_is_refused(bad: str) -> None:
    """A newline in --assignment would start a row of its own in the import's header (hostile round 5, 11)."""
    with pytest.raises(UsageError, match="control character|is empty"):
        header_word(bad, "--assignment")
    assert header_word("Decode (123456) |664617 Ünïcode", "--assignment") == "Decode (123456) |664617 Ünïcode"


def test_the_cli_refuses_such_headers_before_reading_anything(tmp_path: Path) -> None:
    export = run_grade("export", str(tmp_path), "--to", "canvas", "--assignment", "Decode\nInjected,Row")
    assert export.returncode == 2 and "control character" in export.stderr and "Traceback" not in export.stderr
    chapter = run_grade("chapter", str(tmp_path), "--assignment", "decode=Decode\rX", "--out", str(tmp_path / "c"))
    assert chapter.returncode == 2 and "--assignment decode=" in chapter.stderr and not (tmp_path / "c").exists()
    words = run_grade(
        "export", str(tmp_path), "--to", "moodle", "--moodle-words", "Identifier|Participant |Grade|Grade"
    )
    assert words.returncode == 2 and "two columns named 'Grade'" in words.stderr


def test_blackboard_layout_is_the_grade_center_upload_every_value_quoted() -> None:
    who = Identity("Blackboard", "a.love-lace_2", "a.love-lace_2")
    text = export_text([row("a.love-lace_2", 4.5, who)], COLUMN, "blackboard")
    assert text.splitlines() == [
        '"Last Name","First Name","Username","Squares [Total Pts: 5 Score]"',
        '"","","a.love-lace_2","4.5"',
    ]
    found = lms_rules.blackboard(text.encode(), {"a.love-lace_2"})
    assert found.grades == {"a.love-lace_2": 4.5} and found.new_column  # no |id: Blackboard makes a 0-point text column
    existing = Column("Squares [Total Pts: 5 Score] |664617", 5)
    again = export_text([row("a.love-lace_2", 4.5, who)], existing, "blackboard")
    assert not lms_rules.blackboard(again.encode(), {"a.love-lace_2"}).new_column


def test_a_blackboard_column_without_its_id_is_said_to_be_a_text_column(tmp_path: Path) -> None:
    who = Identity("Blackboard", "alovelace", "alovelace")
    note = write_export(tmp_path, [row("alovelace", 4.5, who)], COLUMN, "blackboard").note
    assert "text column worth 0 points" in note and "--export-name" in note
    named = write_export(tmp_path, [row("alovelace", 4.5, who)], Column("Squares |664617", 5), "blackboard").note
    assert "0 points" not in named


def test_an_ungradable_learner_is_blank_with_a_reason_unless_zero_is_asked_for(tmp_path: Path) -> None:
    unreadable = replace(
        row("turingalan_3", 0, Identity("Canvas", "3", "turingalan"), status="unreadable"),
        reason="turingalan.ipynb is not a readable Jupyter notebook",
    )
    rows = [row("lovelaceada_12345", 5, ADA), unreadable]
    lines = table(export_text(rows, COLUMN, "canvas"))
    assert [r[5] for r in lines[2:]] == ["5", ""]
    assert [r[5] for r in table(export_text(rows, COLUMN, "canvas", ungradable="zero"))[2:]] == ["5", "0"]
    crashed = row("hoppergrace_2", 0, Identity("Canvas", "2", "hoppergrace"), status="crashed")
    assert table(export_text([crashed], COLUMN, "canvas", ungradable="zero"))[2][5] == ""  # perhaps the machine's fault
    note = write_export(tmp_path, rows, COLUMN, "canvas").note
    assert "1 left blank" in note and "turingalan_3 (unreadable: turingalan.ipynb is not a readable" in note
    graded = {r["learner"]: r for r in csv.DictReader(io.StringIO(grades_csv(rows)))}
    assert graded["turingalan_3"]["score"] == "" and "not a readable" in graded["turingalan_3"]["reason"]
    assert graded["lovelaceada_12345"]["score"] == "5"


def test_a_learner_the_lms_cannot_match_is_left_out_by_name_never_the_whole_file(tmp_path: Path) -> None:
    stranger = row("núñezjosé_100200_1_squares", 4, Identity())  # a name outside the Canvas pattern
    formula = row("evil", 4, Identity("Canvas", "=HYPERLINK(1)", "evil"))
    rows = [row("lovelaceada_12345", 5, ADA), stranger, formula]
    lines = table(export_text(rows, COLUMN, "canvas"))
    assert [(r[1], r[5]) for r in lines[2:]] == [("12345", "5")]
    note = write_export(tmp_path, rows, COLUMN, "canvas").note
    assert "2 left out" in note and "núñezjosé_100200_1_squares (its file was not named by a Canvas download)" in note
    assert "evil (its Canvas id" in note
    with pytest.raises(UsageError, match="could match none"):
        export_text([stranger], COLUMN, "moodle")  # nobody at all: the file would import nothing
    assert table(export_text([row("ada", 5, Identity())], COLUMN, "csv"))[1][0] == "ada"  # plain csv takes anyone
    check_export("canvas", [ADA, Identity()])  # some learners named by Canvas: grading goes ahead
    with pytest.raises(UsageError, match="none of the 1"):
        check_export("canvas", [Identity()])


def test_two_rows_for_one_identity_never_reach_the_import(tmp_path: Path) -> None:
    """Two submissions one learner: which is theirs is not the export's to guess, and the LMS would keep the last."""
    rows = [row("lovelaceada_12345-squares", 5, ADA), row("lovelaceada_12345-scratch", 0, ADA), row("b", 3, BEA)]
    text = export_text(rows, COLUMN, "canvas")
    assert lms_rules.canvas(text, {"12345", "2"}).grades == {"2": 3.0}
    assert "lovelaceada_12345-scratch (Canvas id 12345 is also lovelaceada_12345-squares's)" in (
        write_export(tmp_path, rows, COLUMN, "canvas").note
    )
    with pytest.raises(lms_rules.Refused, match="more than once"):
        lms_rules.canvas(_CANVAS_TWICE, {"12345"})  # the check itself catches a file that has them


_CANVAS_TWICE = "Student,ID,SIS User ID,SIS Login ID,Section,Squares\na,12345,,,,5\na,12345,,,,0\n"
BEA = Identity("Canvas", "2", "bea")


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


def _note(stdout: str, to: str) -> str:
    return next(line for line in stdout.splitlines() if f"{to} import file" in line)


def _exported_on_the_right_learner(found: lms_rules.Imported, expected: dict[str, float | None]) -> None:
    """Every grade the LMS would take is the one that learner earned; a learner left out is not given anyone's."""
    for key, grade in found.grades.items():
        assert expected.get(key) == grade, (key, grade, expected.get(key))
    for key in found.unchanged:
        assert expected.get(key, "absent") is None, key  # left blank: only those who have no grade to give


@pytest.mark.slow
def test_canvas_download_to_canvas_import_through_grade_batch(tmp_path: Path) -> None:
    subs = tmp_path / "canvas"
    write_nb(subs / "lovelaceada_12345_67890_squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "lovelaceada_12345_67899_scratch.ipynb", UNTOUCHED, lesson=None)  # a second notebook
    write_nb(subs / "hoppergrace_LATE_23456_67891_squares.ipynb", WRONG_SQUARE)
    write_nb(subs / "turingalan_34567_67892_squares.ipynb", RAISES_FIRST)
    (subs / "knuthdon_45678_67893_squares.ipynb").write_text("my notes", encoding="utf-8")  # unreadable
    out = tmp_path / "out"
    args = ("--out", str(out), *LESSONS, "--export", "canvas", "--export-name", "Squares (998)")
    late = ("--due", "2024-03-01T09:00+00:00", "--late-penalty", "per-day:10")
    result = batch(str(_zip(subs, tmp_path / "canvas.zip")), *args, *late)
    assert result.returncode == 0, result.stderr
    note = _note(result.stdout, "canvas")
    text = (out / "canvas-import.csv").read_text(encoding="utf-8")
    header, points, *_ = table(text)
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Squares (998)"] and points[5] == "5"
    found = lms_rules.canvas(text, {"12345", "23456", "34567", "45678"})  # refuses two rows for one ID
    expected: dict[str, float | None] = {"12345": 5.0, "23456": 2.5, "34567": 3.0, "45678": None}
    _exported_on_the_right_learner(found, expected)
    assert found.grades["23456"] == 2.5  # grace's 3, less 10% of 5 for Canvas's late flag (one day at least)
    assert found.unchanged == {"45678"} and "knuthdon_45678 (unreadable" in note  # blank, with why
    assert found.grades["12345"] == 5.0  # ada's one grade: her scratch notebook is not the lesson's
    rows = grades(out)
    hopper = rows["hoppergrace_23456"]
    assert (hopper["late"], hopper["score"], hopper["raw_score"], hopper["late_days"]) == ("yes", "2.5", "3", "1")
    assert "ModuleNotFoundError" in rows["turingalan_34567"]["reason"]
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert "<h2>Late (1)</h2>" in summary
    page = (out / "feedback" / "hoppergrace_23456.md").read_text(encoding="utf-8")
    assert "Handed in late" in page and "Teaching assistant" not in page  # the learner's view by default
    # the same grades again, from the results folder alone, with the policy the batch was given
    csv_file = tmp_path / "plain.csv"
    exported = run_grade("export", str(out), "--to", "csv", "-o", str(csv_file), *LESSONS)
    assert exported.returncode == 0, exported.stderr
    assert csv_file.read_text(encoding="utf-8") == (out / "grades.csv").read_text(encoding="utf-8")
    refused = run_grade("export", str(out), "--to", "moodle")
    assert refused.returncode == 2 and "could match none" in refused.stderr
    # grace resubmits; a rerun without --export keeps the import file the first run asked for up to date
    write_nb(subs / "hoppergrace_LATE_23456_67891_squares.ipynb", SQUARES_SOLVED)
    rerun = batch(str(_zip(subs, tmp_path / "canvas2.zip")), "--out", str(out), *LESSONS, "--only", "hoppergrace_23456")
    assert rerun.returncode == 0 and "as the earlier run asked" in rerun.stdout, rerun.stdout
    header, _, *lines = table((out / "canvas-import.csv").read_text(encoding="utf-8"))
    assert header[5] == "Squares (998)" and ["hoppergrace", "23456", "", "", "", "4.5"] in lines  # still late


@pytest.mark.slow
def test_moodle_download_to_moodle_worksheet_through_grade_batch_and_grade_export(tmp_path: Path) -> None:
    subs = tmp_path / "moodle"
    write_nb(subs / "Ada Lovelace_4711_assignsubmission_file_" / "work" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "Grace Hopper_4712_assignsubmission_file_" / "squares.ipynb", WRONG_SQUARE)
    write_nb(subs / "José Núñez_4713_assignsubmission_file_" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "Mary_Ann O'Neil_4714_assignsubmission_file_" / "squares.ipynb", UNTOUCHED)
    (subs / "Edsger Dijkstra_4715_assignsubmission_file_").mkdir()
    (subs / "Edsger Dijkstra_4715_assignsubmission_file_" / "squares.ipynb").write_text("notes", encoding="utf-8")
    write_nb(subs / "Barbara Liskov_4716_assignsubmission_file_" / "squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "Barbara Liskov_4716_assignsubmission_file_" / "scratch.ipynb", WRONG_SQUARE, lesson=None)
    out = tmp_path / "out"
    result = batch(str(_zip(subs, tmp_path / "moodle.zip")), "--out", str(out), *LESSONS, "--export", "moodle")
    assert result.returncode == 0, result.stderr
    data = (out / "moodle-import.csv").read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf")  # UTF-8, no BOM
    graded_long_ago = 1.0e9
    participants: dict[str, float | None] = {str(n): graded_long_ago for n in range(4711, 4717)}
    found = lms_rules.moodle(data, participants, 5.0)  # the header words, the columns, one row per participant
    expected: dict[str, float | None] = {"4711": 5.0, "4712": 3.0, "4713": 5.0, "4714": 0.0, "4715": None}
    expected["4716"] = 5.0
    _exported_on_the_right_learner(found, expected)
    assert {"4711", "4712", "4713", "4714"} <= set(found.grades) and found.unchanged == {"4715"}
    assert found.grades["4716"] == 5.0  # Barbara's lesson notebook, not her scratch one
    bb = tmp_path / "bb.csv"
    refused = run_grade("export", str(out), "--to", "blackboard", "-o", str(bb))
    assert refused.returncode == 2 and not bb.exists()  # Blackboard matches usernames, which a Moodle download lacks
    again = run_grade("export", str(out), "--to", "moodle", "-o", str(tmp_path / "again.csv"))
    assert again.returncode == 0, again.stderr
    assert lms_rules.moodle((tmp_path / "again.csv").read_bytes(), participants, 5.0) == found


@pytest.mark.slow
def test_blackboard_download_to_grade_center_upload_through_grade_batch(tmp_path: Path) -> None:
    subs = tmp_path / "blackboard"
    write_nb(subs / "Squares_j.nunez-2_attempt_2024-03-01-08-59-00_squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "Squares_hopper3_attempt_2024-03-02-10-00-00_squares.ipynb", WRONG_SQUARE)  # a day and more late
    write_nb(subs / "Squares_j_nunez_attempt_2024-03-01-09-31-00_squares.ipynb", WRONG_SQUARE)  # underscores
    write_nb(subs / "Squares_nunez_attempt_2024-03-01-09-00-00_squares.ipynb", SQUARES_SOLVED)
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("learner,due\nhopper3,2024-03-05T09:00\n", encoding="utf-8")
    out = tmp_path / "out"
    result = batch(
        str(subs),
        "--out",
        str(out),
        *LESSONS,
        "--export",
        "blackboard",
        "--export-name",
        "Squares [Total Pts: 5 Score] |664617",
        "--due",
        "2024-03-01T09:00",
        "--extensions",
        str(extensions),
        "--late-penalty",
        "zero",
    )
    assert result.returncode == 0, result.stderr
    data = (out / "blackboard-import.csv").read_bytes()
    users = {"j.nunez-2", "hopper3", "j_nunez", "nunez"}
    found = lms_rules.blackboard(data, users)  # every value quoted, Username, one row per username
    assert not found.new_column  # the column's |id: Blackboard updates it, in the totals
    # j_nunez handed in 31 minutes late with zero for late: 0; hopper3 has an extension: their own 3
    expected: dict[str, float | None] = {"j.nunez-2": 5.0, "hopper3": 3.0, "j_nunez": 0.0, "nunez": 5.0}
    _exported_on_the_right_learner(found, expected)
    assert {"j.nunez-2", "hopper3"} <= set(found.grades)
    note = _note(result.stdout, "blackboard")
    assert found.grades == expected  # j_nunez and nunez each on their own row, underscores and all
    assert "j_nunez" not in note


def test_the_nbgrader_gradebook_gets_no_grade_for_an_ungradable_notebook_unless_zero_is_asked_for() -> None:
    from grader.batch.export import export_rows
    from grader.lessons import load_lesson
    from tests.conftest import FIXTURE_LESSONS

    lesson = load_lesson("squares", FIXTURE_LESSONS)
    calls: list[list[str]] = []
    rows = [
        row("ada", 5, Identity()),
        row("fay", 0, Identity(), status="unreadable"),
        row("cy", 0, Identity(), "crashed"),
    ]
    exporter = lambda url, lesson, pairs, **kw: calls.append([learner for learner, _ in pairs])  # noqa: E731
    export_rows(exporter, "sqlite://", rows, lesson)
    export_rows(exporter, "sqlite://", rows, lesson, ungradable="zero")
    assert calls == [["ada"], ["ada", "fay"]]
