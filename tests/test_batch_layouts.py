"""Finding submissions: flat folders, LMS file names, nbgrader courses and archives (no grading here)."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from grader.batch import archive
from grader.batch.choose import read_entry
from grader.batch.layouts import find_submissions, open_submissions
from grader.batch.lms_table import LMS_PATTERNS, lms_names
from grader.batch.names import safe_id
from grader.errors import UsageError

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


def test_a_member_too_large_or_a_bomb_is_refused_alone_and_the_class_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sizes are judged from what the archive declares, before anything is inflated: a member too large for a
    notebook, one that inflates too many times, and the largest members once the total would pass the cap are
    each refused (an empty file with a reason: that learner's row), and every other member is read."""
    monkeypatch.setattr(archive, "MAX_NOTEBOOK_BYTES", 1000)
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 1900)
    monkeypatch.setattr(archive, "RATIO_FLOOR_BYTES", 100)
    archive_path = tmp_path / "big.zip"
    with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("ada.ipynb", NB)
        zf.writestr("huge.ipynb", " " * 5000)  # over one notebook's cap
        zf.writestr("bomb.ipynb", " " * 900)  # inflates ~100 times
        noise = bytes(range(256)) * 3
        for i in range(3):  # 768 bytes each, barely compressible: two fit in the total, the third does not
            zf.writestr(f"n{i}.ipynb", noise[: 768 - i])
    into = tmp_path / "x"
    into.mkdir()
    monkeypatch.setattr(archive, "MAX_RATIO", 50)
    unpacked = archive.unpack_zip(archive_path, into)
    why = {p.name: reason for p, reason in unpacked.refused.items()}
    assert sorted(why) == ["bomb.ipynb", "huge.ipynb", "n0.ipynb"]
    assert "more than 0 MB" in why["huge.ipynb"] and "zip bomb" in why["bomb.ipynb"]
    assert "among the largest" in why["n0.ipynb"]
    assert all((into / name).stat().st_size == 0 for name in why)
    assert (into / "ada.ipynb").read_text() == NB and (into / "n2.ipynb").stat().st_size == 766


def test_a_refused_member_is_its_learners_unreadable_row(tmp_path: Path) -> None:
    """A damaged member (a bad CRC), a zip inside the zip and a member compressed otherwise than with deflate are
    refused with a sentence, as their learner's row; the class's other notebooks are read as ever."""
    archive_path = tmp_path / "canvas.zip"
    marker = "DAMAGE-ME" * 20
    with zipfile.ZipFile(archive_path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("lovelaceada_1_2_decode.ipynb", NB.replace('"metadata"', f'"x": "{marker}", "metadata"'))
        zf.writestr("hoppergrace_3_4_decode.zip", b"PK\x03\x04 a zip of the notebook")
        zf.writestr("turingalan_5_6_decode.ipynb", NB)
        zf.writestr("babbagec_7_8_decode.ipynb", NB, compress_type=zipfile.ZIP_BZIP2)  # inflated unbounded
    data = archive_path.read_bytes()
    archive_path.write_bytes(data.replace(marker.encode(), marker.lower().encode(), 1))
    with open_submissions(archive_path) as found:
        reads = {e.learner: read_entry(e, found.root) for e in found.entries}
    assert sorted(reads) == ["babbagec_7", "hoppergrace_3", "lovelaceada_1", "turingalan_5"]
    assert "plain deflate" in reads["babbagec_7"].reason and reads["babbagec_7"].submission is None
    assert "damaged in the archive" in reads["lovelaceada_1"].reason and reads["lovelaceada_1"].submission is None
    assert "zip archive inside" in reads["hoppergrace_3"].reason
    assert reads["turingalan_5"].submission is not None and not reads["turingalan_5"].reason


def test_a_too_long_or_clashing_member_name_is_read_under_another(tmp_path: Path) -> None:
    """A learner file name too long for the filesystem behind Canvas's prefix, and members ``x.ipynb`` and
    ``x.ipynb/y.ipynb`` (or one name twice), used to refuse the whole archive ("File name too long", "File
    exists"): each is now unpacked under a name that fits, and every learner is read."""
    long_name = "lovelaceada_12345_67890_" + "x" * 240 + ".ipynb"
    moodle = "Grace Hopper_4712_assignsubmission_file_"
    for members in (
        {long_name: NB, "turingalan_5_6_decode.ipynb": NB},
        {
            f"{moodle}/x.ipynb": NB,
            f"{moodle}/x.ipynb/y.ipynb": NB,
            "Alan Turing_4713_assignsubmission_file_/a.ipynb": NB,
        },
        {
            f"{moodle}/x.ipynb/y.ipynb": NB,
            f"{moodle}/x.ipynb": NB,
            "Alan Turing_4713_assignsubmission_file_/a.ipynb": NB,
        },
    ):
        archive_path = make_zip(tmp_path / "class.zip", members)
        with open_submissions(archive_path) as found:
            reads = [read_entry(e, found.root) for e in found.entries]
            assert any("under another name" in note for note in found.notes)
        learners_read = {r.entry.learner for r in reads if r.submission is not None}
        assert learners_read == {"lovelaceada_12345", "turingalan_5"} or learners_read == {
            "Grace_Hopper_4712",
            "Alan_Turing_4713",
        }
    with zipfile.ZipFile(archive_path := tmp_path / "twice.zip", "w") as zf:
        zf.writestr("ada.ipynb", NB)
        zf.writestr("ada.ipynb", NB.replace("4", "3", 1))
    with open_submissions(archive_path) as found:
        assert [e.learner for e in found.entries] == ["ada"]
        assert '"nbformat": 3' in found.entries[0].path.read_text()  # the later one, as zipfile reads it
        assert any("appear twice" in note for note in found.notes)


DEEP = 1100  # deeper than the interpreter's stack (its recursion limit is 1000)


def _deep_moodle(top: Path) -> None:
    touch(top / "Ada Lovelace_4711_assignsubmission_file_" / "decode.ipynb")
    here = top / "Grace Hopper_4712_assignsubmission_file_"
    here.mkdir(parents=True)
    fd = os.open(here, os.O_RDONLY)
    for _ in range(DEEP):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def _check_deep(found) -> None:
    by_learner = {e.learner: e for e in found.entries}
    assert sorted(by_learner) == ["Ada_Lovelace_4711", "Grace_Hopper_4712"]
    assert by_learner["Ada_Lovelace_4711"].refused == ""
    assert f"more than {archive.MAX_DEPTH} deep" in by_learner["Grace_Hopper_4712"].refused
    read = read_entry(by_learner["Grace_Hopper_4712"], found.root)
    assert read.submission is None and "not a tree of folders" in read.reason


def _remove_chain(here: Path) -> None:
    """Remove ``here/a/a/...`` one level at a time (``shutil.rmtree``, pytest's cleanup too, recurses)."""
    while (here / "a").is_dir():
        inner = here / "a"
        for name in os.listdir(inner):
            os.rename(inner / name, here / f"{name}.up")
        os.rmdir(inner)
        for name in os.listdir(here):
            if name.endswith(".up"):
                os.rename(here / name, here / name[: -len(".up")])


def test_a_learner_folder_nested_a_thousand_deep_is_refused_alone(tmp_path: Path) -> None:
    """It stopped the class with a bare RecursionError (a recursive walk): now it is that learner's row."""
    try:
        _deep_moodle(tmp_path / "moodle")
        _check_deep(find_submissions(tmp_path / "moodle"))
    finally:
        _remove_chain(tmp_path / "moodle" / "Grace Hopper_4712_assignsubmission_file_")


def test_a_zip_member_nested_a_thousand_deep_is_refused_alone(tmp_path: Path) -> None:
    """As a zip it refused the whole archive (a recursive mkdir): now the folders are made only so deep."""
    archive_path = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive_path, "w") as zf:
        zf.writestr("Ada Lovelace_4711_assignsubmission_file_/decode.ipynb", NB)
        zf.writestr("Grace Hopper_4712_assignsubmission_file_/" + "a/" * DEEP + "decode.ipynb", NB)
    with open_submissions(archive_path) as found:
        _check_deep(found)
        assert any("were not unpacked" in note for note in found.notes)


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
