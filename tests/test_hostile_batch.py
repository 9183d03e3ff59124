"""Hostile round 4 (issue 19, items 4-7) and issue 22's name and row cases: the batch reads only what it
should, and every learner is exactly one row, whatever the learners name their files.

Each class of attack is a test: a fix where it broke, a test that it holds where it held. The fast ones
work on the layout, read and gradebook steps directly; the end-to-end one runs the real ``grade batch``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import unicodedata
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.batch import archive
from grader.batch.choose import Read, choose, read_entry
from grader.batch.gradebook import FILE_NAME, Gradebook
from grader.batch.late import submitted_at
from grader.batch.layouts import Entry, find_submissions, open_submissions
from grader.batch.lms_table import lms_names
from grader.batch.model import Row
from grader.batch.names import is_safe_id, safe_id, same_id
from grader.batch.outputs import write_outputs
from grader.batch.similar import MAX_COMPARED_CELL_CHARS, answer_cells, code_chars
from grader.errors import NotebookUnreadable
from grader.model import Cell, Report, Submission
from grader.read import MAX_JSON_VALUES, parse_submission, read_submission
from tests.batch_support import LESSONS, SQUARES_SOLVED, UNTOUCHED, WRONG_SQUARE, batch, grades, write_nb

NB = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
SECRET = "TA-ONLY-SECRET-4711"


def touch(path: Path, text: str = NB) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def nb_with_lesson(lesson: str | None) -> str:
    meta = {"grader": {"lesson": lesson}} if lesson else {}
    return json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5})


def ids_by_file(found) -> dict[str, str]:
    return {e.path.name: e.learner for e in found.entries}


# ---- item 4: a file name takes another learner's grade ------------------------------------------------


def test_names_that_clean_alike_get_distinct_ids_checked_after_the_rename(tmp_path: Path) -> None:
    """``a b`` and ``a_b`` clean alike; a third learner names their file as the first rename would be."""
    folder = tmp_path / "subs"
    touch(folder / "a b.ipynb")
    touch(folder / "a_b.ipynb")
    first = ids_by_file(find_submissions(folder))
    assert len(set(first.values())) == 2
    for planted in set(first.values()) | {"a_b-a_b-2", "a_b-a_b"}:  # the old renames and the new ones
        touch(folder / f"{planted}.ipynb")
    found = find_submissions(folder)
    ids = ids_by_file(found)
    assert len(ids) == len(set(ids.values())) == len(found.entries)  # one id per file, none shared
    assert all(is_safe_id(i) for i in ids.values())


@pytest.mark.parametrize(
    "names",
    [
        ["ab", "ab.", "ab-decode-2"],  # the last: where the old rename put the second
        [unicodedata.normalize("NFC", "josé"), "josè", "jose", "jos_-decode-2", "José", "JOSE"],
    ],
)
def test_nbgrader_folders_that_clean_alike_are_different_learners(tmp_path: Path, names: list[str]) -> None:
    for name in names:
        touch(tmp_path / "submitted" / name / "ps1" / "decode.ipynb")
    found = find_submissions(tmp_path)
    owners = {e.learner: e.path.parent.parent.name for e in found.entries}
    assert len(owners) == len(found.entries) == len(set(os.listdir(tmp_path / "submitted")))
    assert len({same_id(learner) for learner in owners}) == len(owners)  # José and JOSE too: not only in case


def test_a_name_in_either_unicode_form_is_one_learner_with_one_id(tmp_path: Path) -> None:
    """macOS writes adá decomposed (NFD), Linux and LMSs composed (NFC): one learner's name, so one id, whichever
    form the disk holds, even when it is tagged (ada.ipynb cleans alike); both forms at once are that learner's
    two notebooks (one row, by the rule of grader/batch/choose.py), never two rows or another learner's."""
    ids = {}
    for form in ("NFC", "NFD"):
        touch(tmp_path / form / f"{unicodedata.normalize(form, 'adá')}.ipynb")
        touch(tmp_path / form / "ada.ipynb")
        found = ids_by_file(find_submissions(tmp_path / form))
        ids[form] = {unicodedata.normalize("NFC", name): learner for name, learner in found.items()}
    assert ids["NFC"] == ids["NFD"] and len(set(ids["NFC"].values())) == 2
    for form in ("NFC", "NFD"):
        touch(tmp_path / "both" / f"{unicodedata.normalize(form, 'adá')}.ipynb")
    both = find_submissions(tmp_path / "both")
    assert len(both.entries) == 2 and len({e.learner for e in both.entries}) == 1
    assert any(note.startswith("several notebooks for ada") for note in both.notes)


def test_ids_that_differ_only_in_case_are_two_learners_told_apart(tmp_path: Path) -> None:
    """Ada.ipynb and ada.ipynb: a case-insensitive disk keeps one of Ada.html and ada.html, and an LMS that ignores
    case merges the rows, so they clash as names that clean alike do: each gets its own tag."""
    for stem in ("Ada", "ada", "ADA"):
        touch(tmp_path / f"{stem}.ipynb")
    ids = ids_by_file(find_submissions(tmp_path))
    assert len({same_id(learner) for learner in ids.values()}) == 3
    assert all(learner.startswith(f"{name[:-6]}-") for name, learner in ids.items())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abA _.-é\u0301è\n\u202e", min_size=1, max_size=6), min_size=1, max_size=6))
def test_any_file_names_give_distinct_safe_ids(stems: list[str]) -> None:
    """One id per name (its two Unicode forms are one name), and no two names' ids the same but for case."""
    from grader.batch.layouts import _entry, _unique

    entries = [_entry(Path(f"{s}.ipynb"), s, s, None) for s in dict.fromkeys(stems)]
    found = _unique(entries, "flat folder", ())
    by_name: dict[str, set[str]] = {}
    for entry in found.entries:
        by_name.setdefault(unicodedata.normalize("NFC", entry.shown), set()).add(entry.learner)
    assert all(len(ids) == 1 for ids in by_name.values())
    ids = [learner for (learner,) in by_name.values()]
    assert len({same_id(i) for i in ids}) == len(ids) and all(is_safe_id(i) for i in ids)


# ---- item 5: a FIFO hangs the batch -----------------------------------------------------------------


def _read_in_thread(path: Path, root: Path | None = None) -> BaseException | None:
    """Read ``path`` in a thread; if it blocks (the old code did, forever), unblock it and fail."""
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_submission(path, root) if root is not None else read_submission(path)
            outcome.append(None)
        except BaseException as err:  # noqa: BLE001 - handed to the test
            outcome.append(err)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(20)  # a hang guard, not a timing assertion: a blocked read never finishes at all
    if thread.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # a writer that closes: the reader sees EOF
        thread.join(5)
        pytest.fail(f"reading {path.name} blocked")
    return outcome[0]


def test_a_fifo_is_an_unreadable_row_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "submitted" / "mallory" / "decode" / "decode.ipynb"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    touch(tmp_path / "submitted" / "ada" / "decode" / "decode.ipynb")
    found = find_submissions(tmp_path)
    assert {e.learner for e in found.entries} == {"ada", "mallory"}  # mallory gets a row, with the reason
    err = _read_in_thread(fifo)
    assert isinstance(err, NotebookUnreadable) and "FIFO" in str(err)


@pytest.mark.parametrize("kind", ["folder", "device"])
def test_other_things_named_ipynb_are_unreadable_with_what_they_are(tmp_path: Path, kind: str) -> None:
    if kind == "folder":
        path = tmp_path / "subs" / "dir.ipynb"
        path.mkdir(parents=True)
        (tmp_path / "subs" / "ada.ipynb").write_text(NB)
        assert "dir.ipynb" in ids_by_file(find_submissions(tmp_path / "subs"))
    else:
        path = tmp_path / "dev.ipynb"
        path.symlink_to("/dev/zero")  # a device: refused as a link here, as a device when opened directly
        with pytest.raises(NotebookUnreadable, match="device"):
            read_submission(Path("/dev/zero"))
    with pytest.raises(NotebookUnreadable):
        read_submission(path)


# ---- item 6: a symlink reads a teaching assistant's file --------------------------------------------


def test_a_symlink_is_never_read(tmp_path: Path) -> None:
    private = touch(tmp_path / "ta" / "private.ipynb", nb_with_lesson(None).replace("[]", f'["{SECRET}"]', 1))
    private.chmod(0o600)
    subs = tmp_path / "subs"
    touch(subs / "ada.ipynb")
    (subs / "mallory.ipynb").symlink_to(private)
    found = find_submissions(subs)
    mallory = next(e for e in found.entries if e.learner == "mallory")
    read = read_entry(mallory, found.root)
    assert read.submission is None and "symbolic link" in read.reason and SECRET not in read.reason


def test_a_linked_folder_leads_outside_the_submissions_and_is_refused(tmp_path: Path) -> None:
    touch(tmp_path / "ta" / "ps1" / "decode.ipynb")
    touch(tmp_path / "course" / "submitted" / "ada" / "ps1" / "decode.ipynb")
    (tmp_path / "course" / "submitted" / "mallory").symlink_to(tmp_path / "ta")
    found = find_submissions(tmp_path / "course")
    reads = {e.learner: read_entry(e, found.root) for e in found.entries}
    assert reads["ada"].submission is not None
    assert reads["mallory"].submission is None and "outside the submissions folder" in reads["mallory"].reason


def test_grade_notebook_refuses_a_link_and_a_fifo(tmp_path: Path) -> None:
    """``grade NOTEBOOK`` reads through the same door (grader/read.py)."""
    target = touch(tmp_path / "real.ipynb")
    (tmp_path / "link.ipynb").symlink_to(target)
    with pytest.raises(NotebookUnreadable, match="symbolic link"):
        read_submission(tmp_path / "link.ipynb")
    os.mkfifo(tmp_path / "pipe.ipynb")
    assert isinstance(_read_in_thread(tmp_path / "pipe.ipynb"), NotebookUnreadable)


def test_the_similarity_check_compares_what_was_read_for_grading() -> None:
    """It takes the submissions the batch read (safely, once), not paths it would open again."""
    submission = Submission(Path("x.ipynb"), (Cell(0, "y = 1" * 10, False),), None, "d")
    assert answer_cells(submission) == ("y = 1" * 10,)


# ---- item 7: ids read back from the gradebook ----------------------------------------------------------


def _stored(tmp_path: Path, learner: str = "ada") -> Gradebook:
    book = Gradebook(tmp_path / FILE_NAME)
    run = book.start_run("subs")
    report = Report("squares", "ada.ipynb", 5.0, 5.0, ())
    book.record(run, Row.of(learner, report), "digest", "suites")
    return book


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: {**r, "learner": "../../../x/owned"},
        lambda r: {**r, "learner": 7},
        lambda r: {**r, "questions": "nope"},
        lambda r: {**r, "path": ["not", "text"]},
        lambda r: "not a dict",
    ],
)
def test_a_bad_stored_row_is_a_note_never_a_traceback_or_a_path(tmp_path: Path, tamper) -> None:
    with _stored(tmp_path) as book:
        db = sqlite3.connect(tmp_path / FILE_NAME)
        (result,) = db.execute("SELECT result FROM gradings").fetchone()
        db.execute("UPDATE gradings SET result = ?", (json.dumps(tamper(json.loads(result))),))
        db.commit()
        db.close()
        assert book.latest(["ada"]) == []  # the old gradebook built the row from the stored JSON, unchecked
        rows, notes = book.latest_checked(["ada"])
        assert rows == [] and len(notes) == 1 and "ada" in notes[0]


def test_bad_stored_run_columns_are_never_a_traceback(tmp_path: Path) -> None:
    with _stored(tmp_path) as book:
        db = sqlite3.connect(tmp_path / FILE_NAME)
        db.execute("UPDATE runs SET learners = '[1, {}', export = '\"x\"', ungradable = 'sometimes'")
        db.execute("UPDATE gradings SET options = 'not json'")
        db.commit()
        db.close()
        assert book.roster() == ["ada"] and book.last_export() is None and book.ungradable() == "blank"
        latest = book.latest_grading("ada")
        assert latest is not None and latest.options == {}


def test_every_output_path_stays_inside_the_results_folder(tmp_path: Path) -> None:
    out = tmp_path / "results" / "inner"
    out.mkdir(parents=True)
    rows = [
        Row.of("../../../owned", Report("squares", "m.ipynb", 1.0, 5.0, ())),
        Row.of("ada", Report("squares", "a", 5.0, 5.0, ())),
    ]
    notes = write_outputs(out, rows, {}, "full")
    assert not list(tmp_path.rglob("owned*")) and (out / "feedback" / "ada.html").is_file()
    assert any("owned" in note for note in notes)


def test_a_stored_learner_id_that_is_not_safe_is_never_queried_into_a_row(tmp_path: Path) -> None:
    with _stored(tmp_path, "../evil") as book:
        rows, notes = book.latest_checked(["../evil"])
        assert rows == [] and notes


# ---- the attack classes not reached before ------------------------------------------------------------


@pytest.mark.parametrize(
    "stem",
    [
        "line\nbreak",
        "-rf",
        "--only",
        "x" * 249,
        "é" * 124,
        "evil\u202egpj.exe",
        "\u202e",
    ],
)
def test_hostile_file_names_give_safe_ids_and_one_line_notes(tmp_path: Path, stem: str) -> None:
    folder = tmp_path / "subs"
    touch(folder / f"{stem}.ipynb")
    touch(folder / "ada.ipynb")
    touch(folder / f"{stem}.txt", "x")  # named in a note
    found = find_submissions(folder)
    ids = [e.learner for e in found.entries]
    assert len(set(ids)) == 2 and all(is_safe_id(i) and not i.startswith("-") for i in ids)
    assert all(len(f"{i}.html".encode()) <= 255 for i in ids)
    assert all("\n" not in note and "\u202e" not in note for note in found.notes)


def test_zip_members_that_climb_out_or_are_absolute_are_skipped(tmp_path: Path) -> None:
    archive_path = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive_path, "w") as zf:
        zf.writestr("ada.ipynb", NB)
        for name in ("../up.ipynb", "/abs.ipynb", "a/../../up2.ipynb", "..\\win.ipynb", "C:/drive.ipynb"):
            zf.writestr(name, NB)
    into = tmp_path / "scratch" / "in"
    into.mkdir(parents=True)
    unpacked = archive.unpack_zip(archive_path, into)
    assert sorted(p.name for p in into.rglob("*")) == ["ada.ipynb"]
    assert not list(tmp_path.glob("*.ipynb")) and not list((tmp_path / "scratch").glob("*.ipynb"))
    assert "5 unsafe" in unpacked.notes[0]
    with open_submissions(archive_path) as found:
        assert [e.learner for e in found.entries] == ["ada"]


def test_a_notebook_of_many_tiny_json_values_is_refused_before_it_is_parsed() -> None:
    raw = b'{"nbformat": 4, "cells": [' + b"{}," * MAX_JSON_VALUES + b"{}]}"
    with pytest.raises(NotebookUnreadable, match="JSON values"):
        parse_submission(raw, Path("bomb.ipynb"))


def test_json_nested_too_deeply_is_unreadable_not_a_traceback() -> None:
    for raw in (b"[" * 100_000, b'{"nbformat": 4, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"):
        with pytest.raises(NotebookUnreadable, match="nested"):
            parse_submission(raw, Path("deep.ipynb"))


def test_a_huge_cell_is_not_parsed_by_the_similarity_check() -> None:
    """The batch process parses answers with ast and has no memory limit: a cell near the size cap is left out."""
    huge = "x = [" + "1," * MAX_COMPARED_CELL_CHARS + "]"
    many = [f"y{i} = {i} * {i}" * 200 for i in range(200)]  # each short, together far over the total
    submission = Submission(Path("x"), tuple(Cell(i, s, False) for i, s in enumerate([huge, "z = 1", *many])), None, "")
    kept = answer_cells(submission)
    # The bounds count code, what a tree costs, not the spaces and comments around it (the padding attack).
    assert huge not in kept and "z = 1" in kept and sum(map(code_chars, kept)) <= 200_000 < sum(map(len, kept))


# ---- issue 22: LMS names -------------------------------------------------------------------------------


def test_blackboard_usernames_with_underscores() -> None:
    stem = "Decode_j_nunez_attempt_2024-03-01-09-31-00_decode"
    parsed = lms_names([stem], assignments=["Decode"])
    assert parsed is not None and parsed[1][0] is not None and parsed[1][0].identity.lms_id == "j_nunez"
    both = lms_names([stem, "Decode_alovelace_attempt_2024-03-01-09-30-00_decode"])  # the shared prefix decides
    assert both is not None and [n.identity.lms_id for n in both[1] if n] == ["j_nunez", "alovelace"]


def test_an_ambiguous_blackboard_name_is_never_guessed() -> None:
    assert lms_names(["Decode_j_nunez_attempt_2024-03-01-09-31-00_decode"]) is None  # Decode_j? Decode?


def test_a_blackboard_file_name_holding_another_attempt_does_not_change_whose_it_is() -> None:
    """The learner names their own file: ``x_attempt_<time>_`` or a whole name of another learner's in it must
    not make the username ``mallory_attempt_..._x`` or ``alice`` (hostile round 5, finding 9)."""
    stems = [
        "Decode_alice_attempt_2024-02-29-10-00-00_decode",
        "Decode_mallory_attempt_2024-03-03-10-00-00_x_attempt_2024-02-28-09-00-00_decode",
        "Decode_eve_attempt_2024-03-03-10-00-00_Decode_alice_attempt_2024-02-28-09-00-00_decode",
    ]
    for assignments in ([], ["Decode"]):
        parsed = lms_names(stems, assignments=assignments)
        assert parsed is not None and [n.identity.lms_id if n else None for n in parsed[1]] == [
            "alice",
            "mallory",
            "eve",
        ]
    assert submitted_at(Path("x"), stems[1], "Blackboard").startswith("2024-03-03T10:00:00")  # Blackboard's time


USERNAME = st.text(alphabet="abzAZ09_.-éñ李", min_size=1, max_size=12).filter(
    lambda u: not u.startswith("_") and not u.endswith("_") and "__" not in u
)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["Decode", "Decode_Lab_1", "Lab 2"]),
    st.lists(USERNAME, min_size=1, max_size=4, unique=True),
    st.sampled_from(["decode", "x_attempt_2024-02-28-09-00-00_decode", "Decode_alice_attempt_2024-02-28-09-00-00_y"]),
)
def test_every_legal_blackboard_username_round_trips_or_is_left_out(
    assignment: str, users: list[str], own: str
) -> None:
    """Whatever the learner names their file (``own``), their username is read as Blackboard wrote it, or left out."""
    stems = [f"{assignment}_{u}_attempt_2024-03-01-09-31-00_{own}" for u in users]
    with_name = lms_names(stems, assignments=[assignment])
    assert with_name is not None and [n.identity.lms_id if n else None for n in with_name[1]] == users
    guessed = lms_names(stems)
    for user, name in zip(users, guessed[1] if guessed else [], strict=False):
        assert name is None or name.identity.lms_id == user  # never someone else


def test_canvas_names_of_any_script_and_names_outside_the_pattern(tmp_path: Path) -> None:
    touch(tmp_path / "núñezjosé_100200_300_decode.ipynb")
    touch(tmp_path / "lovelaceada_12345_67890_decode.ipynb")
    touch(tmp_path / "hoppergrace_LATE_222_333_decode.ipynb")
    touch(tmp_path / "núñezjosé_100200_decode.ipynb")  # outside the pattern: one number too few
    found = find_submissions(tmp_path)
    assert found.layout == "Canvas download"
    who = {e.path.name: (e.learner, e.identity.lms_id) for e in found.entries}
    assert who["núñezjosé_100200_300_decode.ipynb"] == ("nunezjose_100200", "100200")
    assert who["núñezjosé_100200_decode.ipynb"][1] == ""  # left out of the LMS identity, not guessed
    assert any("núñezjosé_100200_decode.ipynb" in note and "left out" in note for note in found.notes)


# ---- issue 22: one row per learner ----------------------------------------------------------------------


MOODLE_NAME = st.text(alphabet="Ada Lovelace_09.-éñ李'", min_size=1, max_size=16).filter(
    lambda n: n.strip() == n and "_assignsubmission" not in n
)


@settings(max_examples=150, deadline=None)
@given(MOODLE_NAME, st.integers(1, 10**7))
def test_every_moodle_name_round_trips(name: str, participant: int) -> None:
    for stem, patterns in (
        (f"{name}_{participant}_assignsubmission_file_decode", None),
        (f"{name}_{participant}_assignsubmission_file_", "folders"),
    ):
        from grader.batch.lms_table import LMS_FOLDER_PATTERNS, LMS_PATTERNS

        parsed = lms_names([stem], LMS_FOLDER_PATTERNS if patterns else LMS_PATTERNS)
        assert parsed is not None and parsed[1][0] is not None
        assert (parsed[1][0].identity.name, parsed[1][0].identity.lms_id) == (name, str(participant))


def _reads(tmp_path: Path, files: dict[str, str]) -> list[Read]:
    reads = []
    for name, text in files.items():
        path = touch(tmp_path / name, text)
        reads.append(read_entry(Entry("ada", path, str(path), key="Canvas:1"), tmp_path))
    return reads


def test_the_notebook_for_the_lesson_is_chosen(tmp_path: Path) -> None:
    reads = _reads(
        tmp_path,
        {
            "ada_1_2_scratch.ipynb": nb_with_lesson("squares"),
            "ada_1_3_notebook.ipynb": nb_with_lesson("squares"),
            "ada_1_4_other.ipynb": nb_with_lesson("cooking"),
            "ada_1_5_notes.ipynb": "plain text",
        },
    )
    chosen = choose(reads, "squares", "notebook.ipynb")
    assert chosen.reason == "" and chosen.read.entry.path.name == "ada_1_3_notebook.ipynb"
    by_metadata = choose(
        _reads(tmp_path / "m", {"a.ipynb": nb_with_lesson(None), "b.ipynb": nb_with_lesson("squares")}),
        "squares",
        "notebook.ipynb",
    )
    assert by_metadata.read.entry.path.name == "b.ipynb"


def test_a_learner_with_two_candidates_is_refused_with_a_reason(tmp_path: Path) -> None:
    reads = _reads(
        tmp_path, {"ada_1_2_a.ipynb": nb_with_lesson("squares"), "ada_1_3_b.ipynb": nb_with_lesson("squares")}
    )
    refused = choose(reads, "squares", "notebook.ipynb")
    assert "2 notebooks" in refused.reason and "never guesses" in refused.reason
    none = choose(
        _reads(tmp_path / "n", {"x.ipynb": "text", "y.ipynb": nb_with_lesson("cooking")}), "squares", "n.ipynb"
    )
    assert "None of your 2 notebooks" in none.reason


# ---- end to end: the real `grade batch` -----------------------------------------------------------------


@pytest.mark.slow
def test_a_hostile_folder_end_to_end(tmp_path: Path) -> None:
    """Names that clean alike, a planted id, a FIFO, a link to a private file, a newline and a leading dash
    in a name, and a learner with a scratch notebook: the batch finishes, every learner is one row graded
    from their own notebook, and nothing outside the submissions is read or outside the results written."""
    subs = tmp_path / "subs"
    write_nb(subs / "a b.ipynb", SQUARES_SOLVED)
    write_nb(subs / "a_b.ipynb", WRONG_SQUARE)
    write_nb(subs / "a_b-a_b-2.ipynb", UNTOUCHED)
    write_nb(subs / "-dash\nline.ipynb", SQUARES_SOLVED)
    rtl = "\u202e".encode()
    write_nb(Path(os.fsdecode(bytes(subs) + b"/not utf-8 \xff" + rtl + b".ipynb")), UNTOUCHED)
    os.mkfifo(subs / "fifo.ipynb")
    private = write_nb(tmp_path / "ta" / "private.ipynb", [f"raise ValueError({SECRET!r})", *SQUARES_SOLVED])
    private.chmod(0o600)
    (subs / "mallory.ipynb").symlink_to(private)
    out = tmp_path / "results"
    done = batch(str(subs), "--out", str(out), *LESSONS, "--timeout", "20", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = grades(out)
    assert len(rows) == 7  # one row per submission, none twice
    scores = {Path(r["learner"]).name: (r["status"], r["score"]) for r in rows.values()}
    own = sorted(float(r["score"]) for r in rows.values() if r["status"] == "graded")
    assert all(r["score"] == "" for r in rows.values() if r["status"] == "unreadable")  # blank, not a 0
    assert own == [0.0, 0.0, 3.0, 5.0, 5.0], scores  # each graded from its own content
    assert rows["mallory"]["status"] == "unreadable" and "symbolic link" in rows["mallory"]["reason"]
    assert rows["fifo"]["status"] == "unreadable" and "FIFO" in rows["fifo"]["reason"]
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
            assert rtl not in path.read_bytes(), path  # shown as \u202e, never reordering a line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "subs", "ta"]


@pytest.mark.slow
def test_a_canvas_download_with_a_scratch_notebook_and_an_outsider_end_to_end(tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    write_nb(subs / "lovelaceada_1_10_notebook.ipynb", SQUARES_SOLVED)
    write_nb(subs / "lovelaceada_1_11_scratch.ipynb", UNTOUCHED)
    write_nb(subs / "hoppergrace_2_20_notebook.ipynb", WRONG_SQUARE)
    write_nb(subs / "turingalan_3_30_notebook.ipynb", ["print('hi')"], lesson="cooking")
    write_nb(subs / "núñezjosé_100200_notebook.ipynb", SQUARES_SOLVED)  # outside Canvas's pattern
    out = tmp_path / "results"
    done = batch(str(subs), "--out", str(out), *LESSONS, "--export", "canvas", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = grades(out)
    assert sorted(rows) == ["hoppergrace_2", "lovelaceada_1", "nunezjose_100200_notebook", "turingalan_3"]
    assert rows["lovelaceada_1"]["score"] == "5" and rows["hoppergrace_2"]["score"] == "3"
    assert rows["turingalan_3"]["status"] == "unreadable" and "not 'squares'" in rows["turingalan_3"]["reason"]
    assert rows["nunezjose_100200_notebook"]["lms_id"] == ""
    assert "núñezjosé_100200_notebook.ipynb" in done.stdout
    with sqlite3.connect(out / FILE_NAME) as db:
        assert db.execute("SELECT ungradable FROM runs").fetchall() == [("blank",)]
    ids = [line.split(",")[1] for line in (out / "canvas-import.csv").read_text().splitlines()[2:]]
    assert sorted(ids) == ["1", "2", "3"]  # one line per Canvas learner, the outsider left out
    again = batch(str(subs), "--out", str(out), *LESSONS, "--ungradable", "zero", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    with Gradebook(out / FILE_NAME) as book:
        assert book.ungradable() == "zero"  # where the export reads it


def test_safe_id_is_what_is_safe() -> None:
    assert safe_id("--only") == "only" and safe_id("a\nb") == "a_b" and is_safe_id(safe_id("é" * 300))


def test_a_moodle_name_holding_moodles_own_marker_is_nobody_not_another_participant(tmp_path: Path) -> None:
    """Hostile round 4: Eve (participant 99999) sets her full name to ``Eve_12345_assignsubmission_file_x``; the
    flat download's name then read as participant 12345, whose grade she took (or whose row she spoiled)."""
    for name in (
        "Ada Lovelace_12345_assignsubmission_file_decode",
        "Alan Turing_23456_assignsubmission_file_decode",
        "Katherine Johnson_34567_assignsubmission_file_decode",
        "Eve_12345_assignsubmission_file_x_99999_assignsubmission_file_decode",
        "Grace_777_assignsubmission_file_x_12345_assignsubmission_file_decode",  # the marker in a file's name
    ):
        (tmp_path / f"{name}.ipynb").write_text("{}", encoding="utf-8")
    found = find_submissions(tmp_path)
    ids = {e.identity.lms_id for e in found.entries if e.identity.lms == "Moodle"}
    assert ids == {"12345", "23456", "34567"}  # only Ada is 12345; the two ambiguous names are nobody's
    assert len({e.learner for e in found.entries}) == 5  # and each is still its own row
    ada = [e for e in found.entries if e.identity.lms_id == "12345"]
    assert [e.identity.name for e in ada] == ["Ada Lovelace"]
