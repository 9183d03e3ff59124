"""The bundled chapter class (``examples/class/``, the README's main job): ``grade class`` grades every lesson's
folder and brings the learners together, Canvas ids matched across lessons, a lesson not handed in said, a late
one marked, and the chapter's LMS import holds a column per lesson."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from pathlib import Path

import pytest

from grader.lessons import load_lesson, load_outline
from tests.conftest import CLASS_STEP, REPO, run_grade

CLASS = REPO / "examples" / "class"
#: Canvas's download names: <sortable name>[_LATE]_<user id>_<submission id>_<file name>.
CANVAS = re.compile(r"^(?P<name>[a-z]+)(?P<late>_LATE)?_(?P<user>\d+)_\d+_")


def _handed_in() -> dict[tuple[str, str], bool]:
    """(Canvas user id, lesson) -> whether it was flagged late, for every notebook of the class folder."""
    found = {}
    for path in CLASS.glob("*/*.ipynb"):
        match = CANVAS.match(path.name)
        assert match, path.name
        found[match["user"], path.parent.name] = bool(match["late"])
    return found


def test_the_class_folder_has_what_the_readme_says() -> None:
    """A folder per lesson of the outline, several learners, some lessons not handed in, one late."""
    outline = load_outline()
    assert outline is not None
    lessons = [entry.id for entry in outline.lessons]
    assert sorted(p.name for p in CLASS.iterdir()) == sorted(lessons)
    handed = _handed_in()
    users = {user for user, _ in handed}
    assert len(users) >= 4
    assert any((user, lesson) not in handed for user in users for lesson in lessons)  # some missing
    assert sum(handed.values()) == 1  # one late


@pytest.mark.slow
def test_grade_class_grades_the_bundled_chapter_class(
    tmp_path: Path, graded_class: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    """The README's ``grade class`` (run once a session, the ``graded_class`` fixture: the README's block reads it
    too), its gradebook held to what the README says of it."""
    done, where = graded_class
    assert done.returncode == 0, done.stderr
    out = where / CLASS_STEP.split("--out ")[1]
    with open(out / "chapter" / "chapter.csv", newline="", encoding="utf-8") as f:
        table = {r["lms_id"]: r for r in csv.DictReader(f)}
    lessons = sorted(p.name for p in CLASS.iterdir())
    outline = load_outline()
    assert outline is not None
    columns = [entry.id for entry in outline.lessons if entry.id in lessons]
    assert list(next(iter(table.values())))[4 : 4 + len(columns)] == columns  # the outline's order
    handed = _handed_in()
    assert set(table) == {user for user, _ in handed}  # one row per learner, matched by Canvas id
    full = sum(load_lesson(lesson).max_score for lesson in columns)
    for user, row in table.items():
        for lesson in columns:
            if (user, lesson) not in handed:
                assert (row[lesson], row[f"{lesson} reason"]) == ("", "no submission"), (user, lesson)
            else:
                assert row[lesson] != "" and row[f"{lesson} reason"] == (" (late)" if handed[user, lesson] else "")
        assert float(row["max_score"]) == full
    assert float(table["101"]["total"]) == full  # Ada hands in every lesson, all right
    assert all(float(row["total"]) < full for user, row in table.items() if user != "101")
    reteach = (out / "chapter" / "chapter.md").read_text(encoding="utf-8")
    assert "What to re-teach first" in reteach and all(f"`{lesson}`" in reteach for lesson in columns)

    folders = [str(out / lesson) for lesson in columns]
    done = run_grade("chapter", *folders, "--out", str(tmp_path / "chapter"), "--export", "canvas")
    assert done.returncode == 0, done.stderr
    header, _, *rows = list(csv.reader(io.StringIO((tmp_path / "chapter" / "canvas-import.csv").read_text())))
    assert header[5:] == [load_lesson(lesson).title for lesson in columns]  # a column per lesson, by its title
    assert sorted(r[1] for r in rows) == sorted(table)
