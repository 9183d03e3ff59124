"""Files written whole or not at all (grader/files.py): many at once, flushed together."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.files import write_all_atomic


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".*.tmp"))


def test_every_file_is_written_whole_and_no_temporary_is_left(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old")
    files = [(tmp_path / f"{name}.txt", f"new {name} \u00e9") for name in ("a", "b", "c")]
    write_all_atomic(files)
    assert {p.name: p.read_text(encoding="utf-8") for p, _ in files} == {
        "a.txt": "new a \u00e9",
        "b.txt": "new b \u00e9",
        "c.txt": "new c \u00e9",
    }
    assert _temporaries(tmp_path) == []


def test_a_write_that_fails_changes_no_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    files = [(tmp_path / "a.txt", "new a"), (tmp_path / "missing" / "b.txt", "new b"), (tmp_path / "c.txt", "new c")]
    with pytest.raises(FileNotFoundError):
        write_all_atomic(files)
    assert (tmp_path / "a.txt").read_text() == "old a", "moved into place before every file was written"
    assert not (tmp_path / "c.txt").exists()
    assert _temporaries(tmp_path) == []


def test_a_move_that_fails_leaves_the_rest_unmoved_and_no_temporary(tmp_path: Path) -> None:
    (tmp_path / "b.txt").mkdir()  # a folder where a file goes: its move fails
    (tmp_path / "c.txt").write_text("old c")
    files = [(tmp_path / "a.txt", "new a"), (tmp_path / "b.txt", "new b"), (tmp_path / "c.txt", "new c")]
    with pytest.raises(OSError):
        write_all_atomic(files)
    assert (tmp_path / "a.txt").read_text() == "new a"  # moved before the failure: whole
    assert (tmp_path / "c.txt").read_text() == "old c"
    assert _temporaries(tmp_path) == []
