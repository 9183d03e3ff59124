"""The chapter view: lessons' rows brought together by learner, never joined by a guess."""

from __future__ import annotations

import csv
import io
import shutil
import unicodedata
from pathlib import Path

import pytest

from grader.batch.chapter import Chapter, LessonColumn, chapter_csv, chapter_of, reteach_first, reteach_markdown
from grader.batch.model import Identity, Row
from grader.errors import LessonError
from grader.lessons import load_outline
from grader.model import QuestionResult, Report
from tests.batch_support import UNTOUCHED, WRONG_SQUARE, batch, write_nb
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED, run_grade

REQUEST = LessonColumn("request", "A request, end to end", 10)
DECODE = LessonColumn("decode", "Decode", 35)


def _row(learner: str, lesson: str, score: float, max_score: float, lms_id: str = "", late: bool = False) -> Row:
    feedback = ("f(1) returned 2, which is not right. Too big by a factor of 1,000: milliseconds?",)
    q = QuestionResult("q", score, max_score, "passed" if score == max_score else "failed", () if score else feedback)
    report = Report(lesson, f"{learner}.ipynb", score, max_score, (q,))
    identity = Identity("Canvas", lms_id, learner) if lms_id else Identity()
    return Row(learner, f"{learner}.ipynb", "graded", "", report, identity=identity, late=late)


def _by_key(chapter: Chapter) -> dict[str, list[float | None]]:
    return {r.key: [c.score for c in r.cells] for r in chapter.rows}


def test_learners_are_matched_by_lms_id_not_by_name() -> None:
    """The same Canvas id under two display names is one learner; the same name under two ids is two."""
    chapter = chapter_of(
        [
            (REQUEST, [_row("ada_1", "request", 8, 10, "1"), _row("alan_2", "request", 5, 10, "2")]),
            (DECODE, [_row("ada_lovelace_1", "decode", 30, 35, "1"), _row("alan_3", "decode", 20, 35, "3")]),
        ]
    )
    assert _by_key(chapter) == {"Canvas 1": [8, 30], "Canvas 2": [5, None], "Canvas 3": [None, 20]}
    totals = {r.key: r.total for r in chapter.rows}
    assert totals == {"Canvas 1": 38, "Canvas 2": 5, "Canvas 3": 20} and chapter.max_score == 45
    missing = next(r for r in chapter.rows if r.key == "Canvas 2").cells[1]
    assert missing.reason == "no submission" and missing.learner == ""


def test_two_rows_for_one_learner_give_no_grade_and_a_note() -> None:
    chapter = chapter_of([(REQUEST, [_row("ada", "request", 8, 10, "1"), _row("ada-2", "request", 0, 10, "1")])])
    (row,) = chapter.rows
    assert row.cells[0].score is None and "2 submissions (ada, ada-2)" in row.cells[0].reason
    assert any("Canvas 1 has 2 rows" in n for n in chapter.notes)


def test_ungradable_and_late_are_kept_apart_from_a_zero() -> None:
    unreadable = Row("bob", "bob.ipynb", "unreadable", "not a notebook")
    chapter = chapter_of([(REQUEST, [unreadable, _row("eve", "request", 0, 10, late=True)])])
    cells = {r.key: r.cells[0] for r in chapter.rows}
    assert cells["id bob"].score is None and "not a notebook" in cells["id bob"].reason
    assert cells["id eve"].score == 0 and cells["id eve"].late
    table = list(csv.DictReader(io.StringIO(chapter_csv(chapter))))
    assert {r["key"]: (r["request"], r["request reason"]) for r in table} == {
        "id bob": ("", "unreadable: not a notebook"),
        "id eve": ("0", " (late)"),
    }


def test_an_id_seen_with_and_without_an_lms_identity_is_not_joined() -> None:
    chapter = chapter_of([(REQUEST, [_row("ada", "request", 8, 10, "1")]), (DECODE, [_row("ada", "decode", 30, 35)])])
    assert _by_key(chapter) == {"Canvas 1": [8, None], "id ada": [None, 30]}
    assert any("ada has an LMS identity" in n for n in chapter.notes)


def test_reteach_first_orders_lessons_by_points_lost() -> None:
    lessons = [
        (REQUEST, [_row("a", "request", 10, 10), _row("b", "request", 10, 10)]),
        (DECODE, [_row("a", "decode", 0, 35), _row("b", "decode", 35, 35)]),
        (LessonColumn("prefill", "Prefill", 10), []),
    ]
    order = reteach_first(lessons)
    assert [(r.lesson, round(r.lost, 2)) for r in order] == [("decode", 0.5), ("request", 0.0), ("prefill", 0.0)]
    assert order[0].misconceptions and "factor of 1,000" in order[0].misconceptions[0][1]
    text = reteach_markdown(chapter_of(lessons), order)
    assert "1. `decode`: the class lost 50%" in text and "`prefill`: no notebook graded yet" in text


@pytest.mark.slow
def test_grade_chapter_over_two_lessons_results(tmp_path: Path) -> None:
    """The real commands: two lessons graded as two assignments, then `grade chapter` brings them together."""
    lessons = _two_lessons(tmp_path)
    where = ("--lessons", str(lessons))
    for learner, cells in (("ada", SQUARES_SOLVED), ("alan", WRONG_SQUARE)):
        write_nb(tmp_path / "squares" / f"{learner}.ipynb", cells, "squares")
    write_nb(tmp_path / "cubes" / "ada.ipynb", WRONG_SQUARE, "cubes")
    write_nb(tmp_path / "cubes" / "grace.ipynb", UNTOUCHED, "cubes")
    for lesson in ("squares", "cubes"):
        done = batch(str(tmp_path / lesson), "--out", str(tmp_path / "results" / lesson), "--lesson", lesson, *where)
        assert done.returncode == 0, done.stderr
    folders = [str(tmp_path / "results" / lesson) for lesson in ("squares", "cubes")]
    done = run_grade("chapter", *folders, "--out", str(tmp_path / "chapter"), *where)
    assert done.returncode == 0, done.stderr
    assert "3 learners over 2 lessons" in done.stdout
    with open(tmp_path / "chapter" / "chapter.csv", newline="", encoding="utf-8") as f:
        table = {r["key"]: (r["squares"], r["cubes"], r["total"], r["max_score"]) for r in csv.DictReader(f)}
    assert table == {"id ada": ("5", "3", "8", "10"), "id alan": ("3", "", "3", "10"), "id grace": ("", "0", "0", "10")}
    report = (tmp_path / "chapter" / "chapter.md").read_text(encoding="utf-8")
    assert report.index("`cubes`") < report.index("`squares`")  # cubes lost 70% of its points, squares 20%
    again = run_grade("chapter", folders[0], folders[0], "--out", str(tmp_path / "chapter"), *where)
    assert again.returncode == 2 and "one folder per lesson" in again.stderr


def _two_lessons(tmp_path: Path, *extra: str) -> Path:
    """A lessons folder with squares and copies of it under other ids (same suites, other names)."""
    lessons = tmp_path / "lessons"
    shutil.copytree(FIXTURE_LESSONS / "squares", lessons / "squares")
    for lesson in ("cubes", *extra):
        shutil.copytree(FIXTURE_LESSONS / "squares", lessons / lesson)
        toml = lessons / lesson / "lesson.toml"
        toml.write_text(
            toml.read_text().replace('id = "squares"\ntitle = "Squares"', f'id = "{lesson}"\ntitle = "{lesson}"')
        )
    return lessons


def test_the_outline_must_name_lessons_of_the_folder(tmp_path: Path) -> None:
    lessons = _two_lessons(tmp_path)
    assert load_outline(lessons) is None
    (lessons / "chapter.toml").write_text('title = "T"\n[[lessons]]\nid = "cubes"\n[[lessons]]\nid = "nope"\n')
    with pytest.raises(LessonError, match="names nope"):
        load_outline(lessons)
    (lessons / "chapter.toml").write_text(
        'title = "T"\n[[lessons]]\nid = "cubes"\nneeds = "x"\n[[lessons]]\nid = "cubes"\n'
    )
    with pytest.raises(LessonError, match="once"):
        load_outline(lessons)
    (lessons / "chapter.toml").write_text('title = "T"\n[[lessons]]\nid = "cubes"\nneeds = "squares"\n')
    outline = load_outline(lessons)
    assert outline is not None and [(x.id, x.needs) for x in outline.lessons] == [("cubes", "squares")]


@pytest.mark.slow
def test_grade_class_grades_each_lesson_folder_and_the_chapter(tmp_path: Path) -> None:
    """A Canvas class: a subfolder per lesson, one learner missing a lesson, one late, one lesson with no folder
    (in the outline); learners matched on their Canvas id across lessons."""
    lessons = _two_lessons(tmp_path, "triples")
    (lessons / "chapter.toml").write_text(
        'title = "T"\n[[lessons]]\nid = "cubes"\n[[lessons]]\nid = "triples"\n[[lessons]]\nid = "squares"\n'
    )
    klass = tmp_path / "class"
    write_nb(klass / "squares" / "lovelaceada_101_9001_squares.ipynb", SQUARES_SOLVED, "squares")
    write_nb(klass / "squares" / "turingalan_LATE_102_9002_squares.ipynb", WRONG_SQUARE, "squares")
    write_nb(klass / "cubes" / "lovelaceada_101_9101_cubes.ipynb", WRONG_SQUARE, "cubes")
    out = tmp_path / "results"
    done = run_grade("class", str(klass), "--out", str(out), "--lessons", str(lessons), "--jobs", "1")
    assert done.returncode == 0, done.stderr
    with open(out / "chapter" / "chapter.csv", newline="", encoding="utf-8") as f:
        table = {r["key"]: r for r in csv.DictReader(f)}
    assert list(next(iter(table.values())))[4:7] == ["cubes", "triples", "squares"]  # the outline's order
    ada, alan = table["Canvas 101"], table["Canvas 102"]
    assert (ada["cubes"], ada["triples"], ada["squares"], ada["total"]) == ("3", "", "5", "8")
    assert (alan["cubes"], alan["squares"], alan["total"], alan["max_score"]) == ("", "3", "3", "15")
    assert alan["squares reason"] == " (late)" and alan["cubes reason"] == "no submission"
    assert (out / "squares" / "grades.csv").is_file() and (out / "cubes" / "grades.csv").is_file()
    folders = [str(out / lesson) for lesson in ("cubes", "squares")]
    export = ("--export", "canvas", "--assignment", "squares=Squares (998)")
    done = run_grade("chapter", *folders, "--out", str(tmp_path / "ch"), "--lessons", str(lessons), *export)
    assert done.returncode == 0, done.stderr
    header, points, *lines = list(csv.reader(io.StringIO((tmp_path / "ch" / "canvas-import.csv").read_text())))
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "cubes", "Squares (998)"]
    assert points[5:] == ["5", "5"]
    assert sorted(lines) == [["lovelaceada", "101", "", "", "", "3", "5"], ["turingalan", "102", "", "", "", "", "3"]]
    moodle = run_grade("chapter", *folders, "--out", str(tmp_path / "ch"), "--export", "moodle")
    assert moodle.returncode == 2 and "grade export RESULTS/<lesson> --to moodle" in moodle.stderr
    wrong = run_grade(
        "chapter",
        *folders,
        "--out",
        str(tmp_path / "ch"),
        "--lessons",
        str(lessons),
        "--export",
        "canvas",
        "--assignment",
        "decode=Decode (1)",
    )
    assert wrong.returncode == 2 and "not lessons of this chapter" in wrong.stderr
    (klass / "extra").mkdir()
    refused = run_grade("class", str(klass), "--out", str(out), "--lessons", str(lessons))
    assert refused.returncode == 2 and "not lessons (extra)" in refused.stderr


@pytest.mark.slow
def test_the_chapter_holds_the_late_penalised_score_its_lms_import_holds(tmp_path: Path) -> None:
    """The chapter reads a results folder as `grade export` does: the late policy its batch was given applies."""
    subs = tmp_path / "canvas"
    write_nb(subs / "hoppergrace_LATE_23456_67891_squares.ipynb", SQUARES_SOLVED)
    write_nb(subs / "lovelaceada_12345_67890_squares.ipynb", SQUARES_SOLVED)
    out = tmp_path / "results"
    late = ("--due", "2024-03-01T09:00+00:00", "--late-penalty", "per-day:10")
    done = batch(str(subs), "--out", str(out), "--lessons", str(FIXTURE_LESSONS), *late)
    assert done.returncode == 0, done.stderr
    done = run_grade("chapter", str(out), "--out", str(tmp_path / "chapter"), "--lessons", str(FIXTURE_LESSONS))
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "chapter" / "chapter.csv", newline="", encoding="utf-8") as f:
        table = {r["key"]: (r["squares"], r["squares reason"]) for r in csv.DictReader(f)}
    assert table == {"Canvas 12345": ("5", ""), "Canvas 23456": ("4.5", " (late)")}


def test_the_bundled_outline_orders_every_bundled_lesson() -> None:
    """The chapter outline shipped with the course names each of its lessons once, in the chapter's order."""
    from grader.lessons import available_lessons

    outline = load_outline()
    assert outline is not None and outline.objective
    assert sorted(x.id for x in outline.lessons) == available_lessons()
    assert all(x.needs for x in outline.lessons)


def test_an_id_tagged_in_one_lesson_and_plain_in_another_is_said() -> None:
    """ada and adá clean alike: told apart (ada-<tag>) in the lesson both handed in, not in the other."""
    chapter = chapter_of(
        [
            (REQUEST, [_row("ada-1a2b3c", "request", 8, 10), _row("ada-4d5e6f", "request", 2, 10)]),
            (DECODE, [_row("ada", "decode", 30, 35)]),
        ]
    )
    assert any(n.startswith("ada: names that clean to this id") for n in chapter.notes)


def test_ids_that_differ_only_in_case_or_unicode_form_are_one_learner_across_lessons() -> None:
    """Ada.ipynb in one lesson and ada.ipynb in another are one id (a batch never gives them to two learners: see
    tests/test_hostile_batch.py), and an LMS id written decomposed (macOS) or composed is one LMS id: one row each,
    never two rows an LMS that ignores case would merge."""
    nfc, nfd = unicodedata.normalize("NFC", "jos\u00e9"), unicodedata.normalize("NFD", "jos\u00e9")
    chapter = chapter_of(
        [
            (REQUEST, [_row("Ada", "request", 8, 10), _row("jose_1", "request", 5, 10, nfc)]),
            (DECODE, [_row("ada", "decode", 30, 35), _row("jose_2", "decode", 20, 35, nfd)]),
        ]
    )
    assert _by_key(chapter) == {"id ada": [8, 30], f"Canvas {nfc}": [5, 20]}


def test_two_rows_of_one_lesson_that_differ_only_in_case_get_no_grade() -> None:
    """A gradebook written before ids were compared without case may hold Ada and ada in one lesson: which of them
    is the other lesson's ada is a guess, so neither grade is taken, and the note says why."""
    chapter = chapter_of(
        [
            (REQUEST, [_row("Ada", "request", 8, 10), _row("ada", "request", 2, 10)]),
            (DECODE, [_row("ada", "decode", 30, 35)]),
        ]
    )
    assert _by_key(chapter) == {"id ada": [None, 30]}
    assert any("id ada has 2 rows (Ada, ada)" in n for n in chapter.notes)


def _moodle(name: str, lesson: str, participant: int, score: float) -> Row:
    """A row as a Moodle download gives it: ``Ada Lovelace_101_assignsubmission_file_x.ipynb``."""
    learner = f"{name.replace(' ', '_')}_{participant}"
    row = _row(learner, lesson, score, 10)
    return Row(learner, row.path, "graded", "", row.report, identity=Identity("Moodle", str(participant), name))


def test_moodle_participant_ids_are_per_lesson_so_rows_are_not_joined_and_it_is_said() -> None:
    """Moodle's participant id is one per (assignment, learner): the same learner's ids in two lessons differ,
    and nothing else in the download is the same across them. The chapter must say its rows are not joined,
    never show an empty cell as "no submission" for a learner who handed in under another participant id."""
    request = LessonColumn("request", "Request", 10)
    decode = LessonColumn("decode", "Decode", 10)
    chapter = chapter_of(
        [
            (request, [_moodle("Ada Lovelace", "request", 101, 8), _moodle("Bob Jones", "request", 102, 5)]),
            (decode, [_moodle("Ada Lovelace", "decode", 205, 9), _moodle("Bob Jones", "decode", 206, 6)]),
        ]
    )
    assert len(chapter.rows) == 4  # never joined on the display name, a guess
    (note,) = [n for n in chapter.notes if "Moodle" in n]
    assert "request, decode" in note and "grade export RESULTS/<lesson> --to moodle" in note
    empty = [c for r in chapter.rows for c in r.cells if c.score is None]
    assert len(empty) == 4 and all("not joined" in c.reason for c in empty)
    report = reteach_markdown(chapter, reteach_first([(request, []), (decode, [])]))
    assert note in report and "2 lessons, 4 rows (Moodle rows not joined across lessons)" in report
    alone = chapter_of([(request, [_moodle("Ada Lovelace", "request", 101, 8)])])
    assert alone.notes == () and alone.rows[0].cells[0].score == 8  # one lesson: nothing to join


def test_moodle_rows_a_course_roster_mapped_are_joined_on_its_learner_id() -> None:
    """Graded with --roster, each Moodle row carries the roster's learner id: one learner in every lesson."""
    from dataclasses import replace

    request = LessonColumn("request", "Request", 10)
    decode = LessonColumn("decode", "Decode", 10)

    def rostered(row: Row, learner: str) -> Row:
        return replace(row, learner=learner, identity=replace(row.identity, roster=learner))

    chapter = chapter_of(
        [
            (request, [rostered(_moodle("Ada Lovelace", "request", 101, 8), "lovelace_ada")]),
            (decode, [rostered(_moodle("Ada Lovelace", "decode", 205, 9), "lovelace_ada")]),
        ]
    )
    assert _by_key(chapter) == {"roster lovelace_ada": [8, 9]} and not chapter.notes
