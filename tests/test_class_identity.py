"""A class as each LMS delivers it, end to end (issue 30): a roster made from the LMS's own export, notebooks
released on it, handed in through a Canvas zip, a Moodle folder-per-learner download and a Blackboard download,
graded, and every exported grade checked against the grade each learner earned. The names are awkward on
purpose: accents, a letter NFKD does not decompose (Ł), an apostrophe, a hyphen, an underscore, and two learners
with the same name."""

from __future__ import annotations

import csv
import io
import json
import shutil
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.build import build_lesson
from grader.authoring.release import release
from grader.batch import BatchOptions, run_batch
from grader.batch.classes import grade_class
from grader.batch.late import LatePolicy, Penalty
from grader.batch.roster import from_lms_export, read_roster, roster_csv
from grader.errors import UsageError
from grader.lessons import load_lesson
from grader.params import SECRET_ENV, draw
from grader.pipeline import GradeOptions
from tests import lms_rules
from tests.conftest import run_grade
from tests.lesson_support import answer_shop

FIXTURE = Path(__file__).parent / "fixtures" / "param_lessons" / "shop"
SECRET = "a-course-secret-long-enough-1234"
DUE = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)

#: (Canvas sortable name, Canvas user id): the class.
CLASS = [
    ("Lovelace, Ada", "1001"),
    ("Lee, Min_Jun", "104349"),
    ("Wójcik, Łukasz", "1003"),
    ("O'Brien, Seán", "1004"),
    ("Smith-Jones, Kay", "1005"),
    ("Nguyen, An", "1006"),
    ("Nguyen, An", "1007"),
]


@pytest.fixture
def course(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    shutil.copytree(FIXTURE, tmp_path / "exercises" / "shop")
    build_lesson(load_lesson("shop", tmp_path / "exercises"))
    return tmp_path


def _answered(path: Path) -> str:
    """A released shop notebook filled in right on the numbers it shows (its display copy): what a learner does."""
    answer_shop(path, json.loads(path.read_text(encoding="utf-8"))["metadata"]["grader"]["params"])
    return path.read_text(encoding="utf-8")


def _grade(course: Path, submissions: Path, out: Path, **options: Any) -> None:
    grading = GradeOptions(lesson="shop", lessons_root=course / "exercises")
    run_batch(submissions, out, BatchOptions(grading=grading, jobs=1, **options))


def _policy(extension_for: str) -> LatePolicy:
    return LatePolicy(DUE, ((extension_for, DUE + timedelta(days=3)),), Penalty.parse("per-day:10"))


@pytest.mark.slow
def test_a_class_through_canvas_moodle_and_blackboard_gets_every_grade_right(course: Path) -> None:
    lesson = load_lesson("shop", course / "exercises")
    # -- Canvas: the roster from its gradebook export, released, handed in as a zip ------------------------
    export = course / "gradebook.csv"
    lines = ["Student,ID,SIS User ID,SIS Login ID,Section,Shop (77)", "    Points Possible,,,,,2"]
    lines += [f'"{name}",{uid},,,A,' for name, uid in CLASS]
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    made = run_grade("roster", str(export), "--lms", "canvas", "--out", str(course / "roster.csv"), cwd=course)
    assert made.returncode == 0, made.stderr
    roster = {r.lms_value("canvas_id"): r for r in read_roster(course / "roster.csv")}
    assert [roster[uid].learner for _, uid in CLASS] == [
        "lovelace_ada",
        "lee_min_jun",
        "wojcik_lukasz",
        "o_brien_sean",
        "smith-jones_kay",
        "nguyen_an_1006",
        "nguyen_an_1007",
    ]
    assert all(roster[uid].identity == uid for _, uid in CLASS)  # numbers drawn from the Canvas user id
    release(lesson, course / "roster.csv", course / "released", course / "exercises")
    numbers = {uid: draw(lesson, uid, SECRET.encode()) for _, uid in CLASS}
    assert len(set(numbers.values())) > 1
    source = next(uid for _, uid in CLASS if numbers[uid] != numbers["1003"])  # Łukasz hands in their work
    canvas_zip = course / "submissions.zip"
    with zipfile.ZipFile(canvas_zip, "w") as zf:
        for n, (name, uid) in enumerate(CLASS):
            who = "".join(c for c in name.lower() if c.isalnum() or c in "_-")  # Canvas: the sortable name, cleaned
            late = "LATE_" if uid in ("1001", "1005") else ""  # Ada is late; Kay too, but she has an extension
            text = _answered(course / "released" / roster[source if uid == "1003" else uid].learner / "shop.ipynb")
            zf.writestr(f"{who}_{late}{uid}_{9000 + n}_shop.ipynb", text)
    out = course / "canvas"
    _grade(course, canvas_zip, out, export="canvas", late=_policy("1005"))
    imported = lms_rules.canvas((out / "canvas-import.csv").read_text(encoding="utf-8"), {u for _, u in CLASS})
    expected = {uid: 2.0 for _, uid in CLASS} | {"1001": 1.8}  # only Ada is penalised (10% of 2 points)
    assert imported.grades == expected | {"1003": 1.0}  # Łukasz: unit_price only, graded on his own numbers
    page = (out / "feedback" / "wojciklukasz_1003.html").read_text(encoding="utf-8")
    assert page.index("Whose work this is") < page.index("<table>") and "see the note at the top" in page
    summary = (out / "summary.html").read_text(encoding="utf-8")
    assert summary.index("Integrity") < summary.index("Learners who are stuck") and "wojciklukasz_1003" in summary
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    lee = next(r for r in rows if r["lms_id"] == "104349")
    assert lee["learner"] == "leemin_jun_104349" and lee["score"] == 2 and not lee["errors"]
    assert "submitted" not in lee  # Canvas gives no time: never the unzip time

    # -- Moodle: the roster from its participants export; its download, a folder per learner --------------
    participants = course / "participants.csv"
    people = [(name.partition(", ")[2], name.partition(", ")[0], f"u{uid}@uni.example") for name, uid in CLASS]
    text = "First name,Last name,Email address\n" + "".join(f'"{f}","{last}",{e}\n' for f, last, e in people)
    participants.write_text(text, encoding="utf-8")
    rows_m, notes = from_lms_export(participants, "moodle")
    assert any("share a full name" in n and "An Nguyen" in n for n in notes)
    moodle_roster = course / "moodle-roster.csv"
    moodle_roster.write_text(roster_csv(rows_m), encoding="utf-8")
    release(lesson, course / "moodle-roster.csv", course / "released-m", course / "exercises")
    download = course / "moodle"
    for n, ((first, last, _), row) in enumerate(zip(people, rows_m, strict=True)):
        full = f"{first} {last}".replace("_", " ")  # Moodle writes a name's underscores as spaces
        folder = download / f"{full}_{500 + n}_assignsubmission_file_"
        folder.mkdir(parents=True)
        (folder / "shop.ipynb").write_text(_answered(course / "released-m" / row.learner / "shop.ipynb"))
    with pytest.raises(UsageError, match="--roster") as refused:  # the participant ids drew nobody's numbers
        _grade(course, download, course / "moodle-no-roster", export="moodle")
    assert "participant id that changes" in str(refused.value)
    assert not (course / "moodle-no-roster" / "moodle-import.csv").exists()
    out = course / "moodle-out"
    _grade(course, download, out, export="moodle", roster=course / "moodle-roster.csv")
    ids = {str(500 + n): None for n in range(len(CLASS))}
    imported = lms_rules.moodle((out / "moodle-import.csv").read_bytes(), ids, 2.0)
    # the two An Nguyens cannot be told apart by their full name: blank (no grade on a guess), said in grades.csv
    assert imported.grades == {"500": 2.0, "501": 2.0, "502": 2.0, "503": 2.0, "504": 2.0}
    grades = {r["learner"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    assert {"lovelace_ada", "lee_min_jun", "wojcik_lukasz", "o_brien_sean", "smith-jones_kay"} <= set(grades)
    assert sum("roster cannot say whose" in r["reason"] for r in grades.values()) == 2
    classes = course / "class"
    shutil.copytree(download, classes / "shop")
    grading = GradeOptions(lessons_root=course / "exercises")
    done = grade_class(classes, course / "class-out", BatchOptions(grading=grading, jobs=1, roster=moodle_roster))
    chapter = {r["key"]: r for r in csv.DictReader(io.StringIO((course / "class-out/chapter/chapter.csv").read_text()))}
    assert chapter["roster lee_min_jun"]["shop"] == "2" and len(chapter) == len(CLASS), done.said

    # -- Blackboard: usernames in the names and the attempt time; the extension honoured ----------------------
    board = course / "blackboard"
    board.mkdir()
    (course / "bb-roster.csv").write_text(
        "learner,identity,blackboard_username\n"
        + "".join(f"bb{uid},bb{uid},bb{uid}\n" for _, uid in CLASS[:3])
        + "bbkay,bb1005,bb1005\n",
        encoding="utf-8",
    )
    release(lesson, course / "bb-roster.csv", course / "released-b", course / "exercises")
    late_by_a_day = (DUE + timedelta(hours=20)).astimezone().strftime("%Y-%m-%d-%H-%M-%S")
    on_time = (DUE - timedelta(hours=1)).astimezone().strftime("%Y-%m-%d-%H-%M-%S")
    for learner, user in [("bb1001", "bb1001"), ("bb104349", "bb104349"), ("bb1003", "bb1003"), ("bbkay", "bb1005")]:
        when = late_by_a_day if user in ("bb1001", "bb1005") else on_time
        name = f"Shop_{user}_attempt_{when}_shop.ipynb"
        (board / name).write_text(_answered(course / "released-b" / learner / "shop.ipynb"))
    out = course / "bb-out"
    _grade(course, board, out, export="blackboard", late=_policy("bb1005"))
    imported = lms_rules.blackboard(
        (out / "blackboard-import.csv").read_bytes(), {"bb1001", "bb104349", "bb1003", "bb1005"}
    )
    assert imported.grades == {"bb1001": 1.8, "bb104349": 2.0, "bb1003": 2.0, "bb1005": 2.0}
