"""`grade class`: a lesson's download as a folder or a .zip, `grade batch`'s options, imports kept current, an ETA."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from grader.batch.chapter import EXPORT_FILE, LessonColumn, write_chapter_view
from grader.batch.classes import count_notebooks, lesson_folders
from grader.batch.model import Identity, Row
from grader.batch.progress import ClassProgress, Eta, duration
from grader.errors import UsageError
from grader.model import QuestionResult, Report
from tests.batch_support import WRONG_SQUARE, write_nb
from tests.conftest import SQUARES_SOLVED, run_grade
from tests.test_chapter import _two_lessons

SQUARES = LessonColumn("squares", "Squares", 5)


def _row(learner: str, score: float, lms: str = "Canvas", lms_id: str = "101") -> Row:
    report = Report("squares", f"{learner}.ipynb", score, 5, (QuestionResult("q", score, 5, "failed"),))
    return Row(learner, f"{learner}.ipynb", "graded", "", report, identity=Identity(lms, lms_id, learner))


def _zip(path: Path, members: dict[str, Path]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name, source in members.items():
            zf.write(source, name)
    return path


def _import(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_the_chapter_import_is_written_again_whenever_the_chapter_is(tmp_path: Path) -> None:
    """An import asked for once is rewritten from the new grades by every later writing of the chapter, and
    removed, with the reason, when it can no longer be written: never left saying older grades."""
    out = tmp_path / "chapter"
    write_chapter_view(out, [(SQUARES, [_row("ada", 3)])], "canvas", {"squares": "Squares (998)"})
    assert _import(out / "canvas-import.csv")[2][-1] == "3" and (out / EXPORT_FILE).is_file()
    _, said = write_chapter_view(out, [(SQUARES, [_row("ada", 5)])])  # a regrade, no --export this time
    header, _, line = _import(out / "canvas-import.csv")
    assert header[-1] == "Squares (998)" and line[-1] == "5" and "as an earlier command asked" in said
    _, said = write_chapter_view(out, [(SQUARES, [_row("ada", 5, lms="", lms_id="")])])  # no Canvas ids now
    assert not (out / "canvas-import.csv").exists() and "canvas-import.csv was removed" in said
    write_chapter_view(out, [(SQUARES, [_row("ada", 4)])], "canvas")
    board = [(SQUARES, [_row("ada", 4, "Blackboard", "alovelace")])]
    _, said = write_chapter_view(out, board, "blackboard")  # another LMS now: the old file goes
    assert not (out / "canvas-import.csv").exists() and "canvas-import.csv (asked for before) was removed" in said


def test_a_lesson_folder_may_hold_its_download_as_one_zip(tmp_path: Path) -> None:
    lessons = _two_lessons(tmp_path)
    klass = tmp_path / "class"
    nb = write_nb(tmp_path / "nb" / "ada.ipynb", SQUARES_SOLVED)
    inside = _zip(klass / "squares" / "submissions.zip", {"a/ada.ipynb": nb, "a/bob.ipynb": nb, "a/notes.txt": nb})
    beside = _zip(klass / "cubes.zip", {"ada.ipynb": nb})
    assert lesson_folders(klass, lessons) == [("cubes", beside), ("squares", inside)]
    assert count_notebooks(inside) == 2 and count_notebooks(klass / "squares") == 0
    (klass / "__MACOSX" / "squares").mkdir(parents=True)  # a class unzipped on a Mac: the archiver's metadata
    (klass / "__MACOSX" / "squares" / "._ada.ipynb").write_bytes(b"\x00\x05\x16\x07")
    (klass / ".ipynb_checkpoints").mkdir()
    assert lesson_folders(klass, lessons) == [("cubes", beside), ("squares", inside)]
    (klass / "cubes").mkdir()
    with pytest.raises(UsageError, match="cubes twice"):
        lesson_folders(klass, lessons)
    beside.unlink()
    write_nb(klass / "squares" / "grace.ipynb", SQUARES_SOLVED)
    with pytest.raises(UsageError, match=r"submissions.zip and 1 notebook\(s\): keep one download"):
        lesson_folders(klass, lessons)


def test_the_eta_is_the_whole_class_and_counts_only_what_is_graded_now() -> None:
    clock = Eta()
    clock.start(4)
    assert clock.seconds_left() is None and clock.said() == ""
    clock.done(skipped=True)
    assert clock.seconds_left() is None  # a notebook kept unchanged took no time: no rate yet
    clock.done(skipped=False)
    left = clock.seconds_left()
    assert left is not None and left >= 0 and clock.counted() == "[2/4]" and "ETA" in clock.said()
    clock.start(3, estimated=1)  # a lesson counted 1 by the guess holds 3
    assert clock.total == 6
    assert (duration(42), duration(185), duration(3725)) == ("42 s", "3 min 5 s", "1 h 2 min")
    lines = io.StringIO()
    whole = ClassProgress({"cubes": 1, "squares": 2}, lines)
    whole.lesson("cubes").start(1)
    whole.lesson("cubes").done(_row("ada", 5))
    whole.lesson("squares").start(2)
    whole.lesson("squares").done(_row("ada", 5))
    assert lines.getvalue().splitlines()[0].startswith("[1/3] cubes: ada: graded 5/5 (ETA ")


@pytest.mark.slow
def test_grade_class_takes_batch_options_zips_and_keeps_every_import_current(tmp_path: Path) -> None:
    """A Canvas class, one lesson saved as a .zip in its folder, graded with a late policy and Canvas imports;
    then a resubmission arrives and `grade class` runs again without --export: every import says the new grade."""
    lessons = _two_lessons(tmp_path)
    klass = tmp_path / "class"
    late = write_nb(tmp_path / "nb" / "turingalan_LATE_102_9002_squares.ipynb", SQUARES_SOLVED)
    ada = write_nb(tmp_path / "nb" / "lovelaceada_101_9001_squares.ipynb", WRONG_SQUARE)
    _zip(klass / "squares" / "submissions.zip", {late.name: late, ada.name: ada})
    write_nb(klass / "cubes" / "lovelaceada_101_9101_cubes.ipynb", SQUARES_SOLVED, "cubes")
    out = tmp_path / "results"
    where = ("--out", str(out), "--lessons", str(lessons), "--jobs", "1")
    policy = ("--due", "2024-03-01T09:00+00:00", "--late-penalty", "per-day:10")
    names = ("--export-name", "squares=Squares (998)")
    done = run_grade("class", str(klass), *where, *policy, "--export", "canvas", *names, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "[1/3] cubes: lovelaceada_101: graded 5/5 (ETA " in done.stderr  # the whole class's count and ETA
    header, _, *lines = _import(out / "chapter" / "canvas-import.csv")
    assert header[5:] == ["cubes", "Squares (998)"]
    assert sorted(lines) == [["lovelaceada", "101", "", "", "", "5", "3"], ["turingalan", "102", "", "", "", "", "4.5"]]
    assert _import(out / "squares" / "canvas-import.csv")[0][-1] == "Squares (998)"
    write_nb(ada, SQUARES_SOLVED)  # the resubmission
    (klass / "squares" / "submissions.zip").unlink()
    _zip(klass / "squares" / "submissions-2.zip", {late.name: late, ada.name: ada})
    again = run_grade("class", str(klass), *where, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "1 regraded because their notebook changed" in again.stdout
    chapter = {r[1]: r[5:] for r in _import(out / "chapter" / "canvas-import.csv")[2:]}
    assert chapter == {"101": ["5", "5"], "102": ["", "4.5"]}  # the late policy was kept, too
    lesson = {r[1]: r[-1] for r in _import(out / "squares" / "canvas-import.csv")[2:]}
    assert lesson == {"101": "5", "102": "4.5"}
    one = run_grade("class", str(klass), *where, "--lesson", "cubes", "--regrade", timeout=600)
    assert one.returncode == 0, one.stderr
    assert "1 submissions" in one.stdout and one.stdout.count("submissions (") == 1  # only cubes was graded
    write_nb(klass / "cubes" / "lovelaceada_101_9101_cubes.ipynb", WRONG_SQUARE, "cubes")  # a resubmission
    cubes = ("--out", str(out / "cubes"), "--lesson", "cubes", "--lessons", str(lessons))
    alone = run_grade("batch", str(klass / "cubes"), *cubes, timeout=600)  # that lesson's batch alone
    assert alone.returncode == 0, alone.stderr
    assert f"the chapter in {(out / 'chapter').resolve()} was written again" in alone.stdout
    chapter = {r[1]: r[5:] for r in _import(out / "chapter" / "canvas-import.csv")[2:]}
    assert chapter == {"101": ["3", "5"], "102": ["", "4.5"]}
    with open(out / "chapter" / "chapter.csv", newline="", encoding="utf-8") as f:
        assert {r["key"]: r["cubes"] for r in csv.DictReader(f)} == {"Canvas 101": "3", "Canvas 102": ""}


@pytest.mark.slow
def test_one_set_of_grading_processes_grades_every_lesson_of_a_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Grader grades any lesson: each lesson's batch took processes of its own, which started, imported pytest and
    booted their zygotes again (the example class of six lessons: 3.6 s, then 2.0 s; bench/RESULTS.md round 21)."""
    from grader.batch import dispatch
    from grader.batch.classes import grade_class
    from grader.batch.run import BatchOptions
    from grader.pipeline import GradeOptions

    made: list[int] = []
    new_pool = dispatch._new_pool

    def counted(settings: object, processes: int) -> object:
        made.append(processes)
        return new_pool(settings, processes)  # type: ignore[arg-type]

    monkeypatch.setattr(dispatch, "_new_pool", counted)
    lessons = _two_lessons(tmp_path)
    klass = tmp_path / "class"
    write_nb(klass / "squares" / "ada.ipynb", SQUARES_SOLVED)
    write_nb(klass / "squares" / "bob.ipynb", WRONG_SQUARE)
    write_nb(klass / "cubes" / "ada.ipynb", SQUARES_SOLVED, "cubes")
    write_nb(klass / "cubes" / "bob.ipynb", SQUARES_SOLVED, "cubes")
    run = grade_class(klass, tmp_path / "out", BatchOptions(GradeOptions(lessons_root=lessons), jobs=2))
    assert made == [2], "a lesson's batch started grading processes of its own"
    assert {b.rows[0].lesson: sorted(r.score for r in b.rows) for b in run.batches} == {
        "cubes": [5.0, 5.0],
        "squares": [3.0, 5.0],
    }
