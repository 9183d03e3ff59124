"""The course roster (grader/batch/roster.py): read, made from an LMS's roster export, mapped onto a download's
learners without a guess, and the run-level check that a class is graded on the numbers it was released."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch.model import Identity
from grader.batch.roster import check_released, from_lms_export, map_learners, read_roster
from grader.errors import UsageError


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_canvas_gradebook_export_gives_readable_ids_drawn_from_the_canvas_user_id(tmp_path: Path) -> None:
    export = _write(
        tmp_path / "g.csv",
        "Student,ID,SIS User ID,SIS Login ID,Section,Decode (1)\n    Points Possible,,,,,35\n"
        '"Wójcik, Łukasz",11,,,A,\n"Nguyen, An",12,,,A,\n"Nguyen, An",13,,,A,\n"Øster, Åse",14,,,A,\n',
    )
    rows, notes = from_lms_export(export, "canvas")
    assert [(r.learner, r.identity, r.lms_value("canvas_id")) for r in rows] == [
        ("wojcik_lukasz", "11", "11"),
        ("nguyen_an_12", "12", "12"),
        ("nguyen_an_13", "13", "13"),
        ("oster_ase", "14", "14"),
    ]
    assert notes == ()
    with pytest.raises(UsageError, match="no 'ID' column"):
        from_lms_export(_write(tmp_path / "bad.csv", "Student,Section\nx,A\n"), "canvas")


def test_a_moodle_participants_export_needs_a_lasting_identity(tmp_path: Path) -> None:
    export = _write(tmp_path / "p.csv", "First name,Last name,Email address\nSeán,O'Brien,sob@x.org\n")
    (row,), _ = from_lms_export(export, "moodle")
    assert (row.learner, row.identity, row.lms_value("moodle_name")) == ("o_brien_sean", "sob@x.org", "Seán O'Brien")
    with pytest.raises(UsageError, match="Username, ID number or Email address"):
        from_lms_export(_write(tmp_path / "q.csv", "First name,Last name\nA,B\n"), "moodle")


def test_a_roster_refuses_one_lms_id_for_two_learners(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="same canvas_id"):
        read_roster(_write(tmp_path / "r.csv", "learner,canvas_id\nada,1\nbob,1\n"))


def test_the_download_is_mapped_by_each_lms_column_and_never_by_a_guess(tmp_path: Path) -> None:
    roster = read_roster(
        _write(
            tmp_path / "r.csv",
            "learner,identity,canvas_id,moodle_name\nlee_min_jun,104349,104349,Min_Jun Lee\n"
            "nguyen_an_1,a1@x,,An Nguyen\nnguyen_an_2,a2@x,,An Nguyen\nada,ada@x,,Ada Lovelace\n",
        )
    )
    canvas, _ = map_learners({"c": ("leemin_jun_104349", Identity("Canvas", "104349", "leemin_jun"))}, roster)
    assert (canvas["c"].learner, canvas["c"].draws, canvas["c"].identity.roster) == (
        "lee_min_jun",
        "104349",
        "lee_min_jun",
    )
    keys = {
        "m1": ("Min_Jun_Lee_7", Identity("Moodle", "7", "Min Jun Lee")),  # Moodle writes _ as a space
        "m2": ("An_Nguyen_8", Identity("Moodle", "8", "An Nguyen")),  # two roster rows have this name
        "m3": ("Ada_Lovelace_9", Identity("Moodle", "9", "Ada Lovelace")),
        "m4": ("Ada_Lovelace_10", Identity("Moodle", "10", "Ada Lovelace")),  # two learners fit one row
        "g": ("zoe", Identity()),
    }
    mapped, note = map_learners(keys, roster)
    assert (mapped["m1"].learner, mapped["m1"].draws) == ("lee_min_jun", "104349")
    assert "2 roster rows" in mapped["m2"].refused
    assert all("2 learners of this download" in mapped[k].refused for k in ("m3", "m4"))
    assert mapped["g"].learner == "zoe" and "zoe" in note and "not on the course roster" in note
    flat, _ = map_learners({"a": ("ada", Identity()), "b": ("ada", Identity("Canvas", "5", "ada"))}, roster)
    assert flat["a"].draws == "ada@x" and flat["b"].learner == "ada-not-on-roster"  # never a rostered id


def test_most_of_a_class_on_numbers_it_was_not_released_stops_the_run() -> None:
    one_swap = [("ada", (1,), (1,)), ("bob", (1,), (2,)), ("cy", (2,), (2,))]
    check_released(one_swap, "Canvas download", rostered=False)  # a swap is flagged on the learner's own page
    check_released([("ada", (1,), (2,)), ("bob", (1,), (2,))], "Moodle download", rostered=False)  # too few to say
    with pytest.raises(UsageError, match="2 of the 3 notebooks.*Moodle download.*--roster"):
        check_released([("ada", (1,), (2,)), ("bob", (1,), (2,)), ("cy", (2,), (2,))], "Moodle download", False)
