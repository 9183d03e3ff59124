"""Finding submissions: flat folders, LMS file names, nbgrader courses and archives (no grading here)."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from grader.batch import archive
from grader.batch.layouts import find_submissions, open_submissions
from grader.batch.names import LMS_PATTERNS, lms_names, safe_id
from grader.errors import NotebookUnreadable, UsageError
from grader.read import read_submission

NB = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'


def touch(path: Path, text: str = NB) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def learners(found) -> dict[str, str]:
    return {e.learner: e.path.name for e in found.entries}


@pytest.mark.parametrize(
    ("name", "learner", "late"),
    [
        ("lovelaceada_12345_67890_decode.ipynb", "lovelaceada_12345", False),
        ("lovelaceada_LATE_12345_67890_decode-1.ipynb", "lovelaceada_12345", True),
        ("Ada Lovelace_4711_assignsubmission_file_decode.ipynb", "Ada_Lovelace_4711", False),
        ("Decode_alovelace_attempt_2024-03-01-09-30-00_decode.ipynb", "alovelace", False),
        # Canvas keeps underscores in the sortable name ("Lee, Min_Jun"): the ids at the end say where it ends
        ("leemin_jun_104349_9000404_request.ipynb", "leemin_jun_104349", False),
        ("leemin_jun_LATE_104349_9000404_request_2_3_x.ipynb", "leemin_jun_104349", True),
        ("obrienseamus_77_88_decode.ipynb", "obrienseamus_77", False),
    ],
)
def test_lms_file_names_give_the_learner_and_the_late_flag(name: str, learner: str, late: bool) -> None:
    found = lms_names([Path(name).stem])
    assert found is not None
    _, (parsed,) = found
    assert (parsed.learner, parsed.late) == (learner, late)


def test_canvas_is_the_first_pattern_documented() -> None:
    assert LMS_PATTERNS[0].name == "Canvas"


def test_a_folder_is_read_as_an_lms_download_only_if_every_name_matches(tmp_path: Path) -> None:
    touch(tmp_path / "lovelaceada_12345_67890_decode.ipynb")
    touch(tmp_path / "hopper_grace.ipynb")
    found = find_submissions(tmp_path)
    assert found.layout == "flat folder"
    assert set(learners(found)) == {"lovelaceada_12345_67890_decode", "hopper_grace"}


def test_a_canvas_download_folder(tmp_path: Path) -> None:
    touch(tmp_path / "lovelaceada_12345_67890_decode.ipynb")
    touch(tmp_path / "hoppergrace_LATE_222_333_decode.ipynb")
    found = find_submissions(tmp_path)
    assert found.layout == "Canvas download"
    assert {e.learner: e.late for e in found.entries} == {"lovelaceada_12345": False, "hoppergrace_222": True}


def test_a_flat_folder_uses_stems_and_ignores_hidden_checkpoints_and_other_files(tmp_path: Path) -> None:
    touch(tmp_path / "ada.ipynb")
    touch(tmp_path / "grace hopper (1).ipynb")
    touch(tmp_path / ".hidden.ipynb")
    touch(tmp_path / ".ipynb_checkpoints" / "ada-checkpoint.ipynb")
    touch(tmp_path / "notes.txt", "x")
    found = find_submissions(tmp_path)
    assert learners(found) == {"ada": "ada.ipynb", "grace_hopper_1": "grace hopper (1).ipynb"}
    assert any("notes.txt" in note for note in found.notes)


def test_an_underscore_in_a_canvas_name_keeps_the_learner_and_their_canvas_id(tmp_path: Path) -> None:
    touch(tmp_path / "leemin_jun_104349_9000404_request.ipynb")
    touch(tmp_path / "lovelaceada_12345_67890_request.ipynb")
    found = find_submissions(tmp_path)
    assert found.layout == "Canvas download" and not found.notes
    lee = next(e for e in found.entries if e.identity.lms_id == "104349")
    assert (lee.learner, lee.identity.name, lee.download) == ("leemin_jun_104349", "leemin_jun", "Canvas")


def test_ids_transliterate_letters_rather_than_drop_them() -> None:
    assert safe_id("Wójcik Łukasz") == "Wojcik_Lukasz"
    assert [safe_id(n) for n in ("Søren", "Straße", "Æsa", "Đorđe", "Þóra")] == [
        "Soren",
        "Strasse",
        "AEsa",
        "Dorde",
        "Thora",
    ]


def test_learner_ids_are_safe_file_names() -> None:
    assert safe_id("../../etc/passwd") == "etc_passwd"
    assert safe_id("...") == "learner"
    assert "/" not in safe_id("a/b\\c")


def test_an_nbgrader_course(tmp_path: Path) -> None:
    touch(tmp_path / "course" / "submitted" / "ada" / "ps1" / "decode.ipynb")
    touch(tmp_path / "course" / "submitted" / "grace" / "ps1" / "decode.ipynb")
    touch(tmp_path / "course" / "source" / "ps1" / "decode.ipynb")
    for root in (tmp_path / "course", tmp_path / "course" / "submitted"):
        found = find_submissions(root)
        assert found.layout == "nbgrader course" and set(learners(found)) == {"ada", "grace"}


def test_several_nbgrader_assignments_need_choosing(tmp_path: Path) -> None:
    touch(tmp_path / "submitted" / "ada" / "ps1" / "decode.ipynb")
    touch(tmp_path / "submitted" / "ada" / "ps2" / "prefill.ipynb")
    with pytest.raises(UsageError, match="--assignment"):
        find_submissions(tmp_path)
    assert learners(find_submissions(tmp_path, assignment="ps2")) == {"ada": "prefill.ipynb"}
    with pytest.raises(UsageError, match="no assignment 'ps9'"):
        find_submissions(tmp_path, assignment="ps9")


def test_several_notebooks_of_one_learner_share_their_one_id(tmp_path: Path) -> None:
    touch(tmp_path / "lovelaceada_1_2_decode.ipynb")
    touch(tmp_path / "lovelaceada_1_3_extra.ipynb")
    found = find_submissions(tmp_path)
    assert [e.learner for e in found.entries] == ["lovelaceada_1", "lovelaceada_1"]  # one learner: one row
    assert any("several notebooks" in note for note in found.notes)


def make_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return path


def test_a_zip_is_read_like_the_folder_it_holds(tmp_path: Path) -> None:
    archive_path = make_zip(
        tmp_path / "class.zip", {"class/ada.ipynb": NB, "class/grace.ipynb": NB, "class/readme.txt": "x"}
    )
    with open_submissions(archive_path) as found:
        assert learners(found) == {"ada": "ada.ipynb", "grace": "grace.ipynb"}
        assert {e.shown for e in found.entries} == {
            str(archive_path / "class" / "ada.ipynb"),
            str(archive_path / "class" / "grace.ipynb"),
        }
        assert all(e.path.is_file() for e in found.entries)
        scratch = found.entries[0].path.parent
    assert not scratch.exists()  # unpacked into a scratch folder that is gone afterwards


def test_zip_members_that_escape_or_link_are_skipped(tmp_path: Path) -> None:
    archive_path = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive_path, "w") as zf:
        zf.writestr("ada.ipynb", NB)
        zf.writestr("../escaped.ipynb", NB)
        zf.writestr("/abs.ipynb", NB)
        zf.writestr("a/../../up.ipynb", NB)
        link = zipfile.ZipInfo("link.ipynb")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
    into = tmp_path / "scratch" / "inner"
    into.mkdir(parents=True)
    unpacked = archive.unpack_zip(archive_path, into)
    assert sorted(p.name for p in into.rglob("*")) == ["ada.ipynb"]
    assert not (tmp_path / "scratch" / "escaped.ipynb").exists() and not (tmp_path / "escaped.ipynb").exists()
    assert "4 unsafe" in unpacked.notes[0]


def test_a_zip_bomb_is_refused_and_an_oversized_notebook_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_NOTEBOOK_BYTES", 1000)
    monkeypatch.setattr("grader.read.MAX_NOTEBOOK_BYTES", 1000)
    archive_path = make_zip(tmp_path / "big.zip", {"ada.ipynb": NB, "huge.ipynb": " " * 5000})
    into = tmp_path / "x"
    into.mkdir()
    archive.unpack_zip(archive_path, into)
    assert (into / "huge.ipynb").stat().st_size == 1001  # cut short, sparse
    with pytest.raises(NotebookUnreadable, match="larger than"):
        read_submission(into / "huge.ipynb")
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 3000)
    bomb = make_zip(tmp_path / "bomb.zip", {f"n{i}.ipynb": " " * 900 for i in range(5)})
    with pytest.raises(UsageError, match="refused"):
        archive.unpack_zip(bomb, tmp_path / "y")


def test_something_that_is_not_a_zip_is_a_usage_error(tmp_path: Path) -> None:
    fake = touch(tmp_path / "class.zip", "not a zip")
    with pytest.raises(UsageError, match="not a readable zip"):
        with open_submissions(fake):
            pass
    with pytest.raises(UsageError, match="neither a folder"):
        with open_submissions(touch(tmp_path / "x.txt", "x")):
            pass


MOODLE_FOLDERS = {
    "Ada Lovelace_4711_assignsubmission_file_/decode.ipynb": NB,
    "Ada Lovelace_4711_assignsubmission_onlinetext_/onlinetext.html": "<p>see my notebook</p>",
    "Grace Hopper_4712_assignsubmission_file_/work/decode.ipynb": NB,
    "Grace Hopper_4712_assignsubmission_file_/work/.ipynb_checkpoints/decode-checkpoint.ipynb": NB,
    "Alan Turing_4713_assignsubmission_file_/decode.ipynb": NB,
    "Alan Turing_4713_assignsubmission_file_/scratch.ipynb": NB,
    "Linus_4714_assignsubmission_onlinetext_/onlinetext.html": "<p>no notebook</p>",
}


def test_a_moodle_download_with_a_folder_per_learner(tmp_path: Path) -> None:
    for rel, text in MOODLE_FOLDERS.items():
        touch(tmp_path / "moodle" / rel, text)
    archive_path = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive_path, "w") as zf:
        for rel, text in MOODLE_FOLDERS.items():
            zf.writestr(rel, text)
    with open_submissions(archive_path) as from_zip:
        for found in (find_submissions(tmp_path / "moodle"), from_zip):
            assert found.layout == "Moodle download (a folder per learner)"
            assert sorted(
                (e.learner, next(rel for rel in MOODLE_FOLDERS if e.shown.endswith(rel))) for e in found.entries
            ) == [
                ("Ada_Lovelace_4711", "Ada Lovelace_4711_assignsubmission_file_/decode.ipynb"),
                ("Alan_Turing_4713", "Alan Turing_4713_assignsubmission_file_/decode.ipynb"),
                ("Alan_Turing_4713", "Alan Turing_4713_assignsubmission_file_/scratch.ipynb"),
                ("Grace_Hopper_4712", "Grace Hopper_4712_assignsubmission_file_/work/decode.ipynb"),
            ]
    # Only .ipynb members are unpacked from an archive, so only the folder can say who sent no notebook.
    assert any(
        "no notebook from 1 learner(s): Linus_4714" in note for note in find_submissions(tmp_path / "moodle").notes
    )


def test_a_moodle_download_of_one_learner_is_not_unwrapped_into_their_folder(tmp_path: Path) -> None:
    touch(tmp_path / "download" / "Ada Lovelace_4711_assignsubmission_file_" / "decode.ipynb")
    found = find_submissions(tmp_path)
    assert found.layout == "Moodle download (a folder per learner)"
    assert learners(found) == {"Ada_Lovelace_4711": "decode.ipynb"}


def test_folders_that_are_not_an_lms_download_are_not_read_as_learners(tmp_path: Path) -> None:
    touch(tmp_path / "week1" / "decode.ipynb")
    touch(tmp_path / "week2" / "decode.ipynb")
    found = find_submissions(tmp_path)
    assert found.layout == "flat folder" and found.entries == ()
