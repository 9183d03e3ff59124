"""Step 1 on its own: which files are notebooks, and what learners are told when one is not."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from grader.errors import NotebookUnreadable
from grader.read import read_submission
from tests.conftest import notebook


def test_reads_code_cells_tags_and_lesson(tmp_path: Path) -> None:
    path = tmp_path / "a.ipynb"
    path.write_text(nbformat.writes(notebook(["x = 1", ("check('x')", ["self-check"])], lesson="squares")))
    sub = read_submission(path)
    assert [c.source for c in sub.cells] == ["x = 1", "check('x')"]
    assert [c.skip for c in sub.cells] == [False, True]
    assert [c.index for c in sub.cells] == [1, 2]  # positions among all cells, markdown included
    assert sub.lesson_id == "squares"
    assert len(sub.digest) == 64


@pytest.mark.parametrize("minor", [0, 4, 5])
def test_any_nbformat_4_minor_version(tmp_path: Path, minor: int) -> None:
    nb = {
        "nbformat": 4,
        "nbformat_minor": minor,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": ["y = ", "2"], "outputs": [], "execution_count": None}
        ],
    }
    if minor >= 5:
        nb["cells"][0]["id"] = "abc"
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(nb))
    assert read_submission(path).cells[0].source == "y = 2"


def test_nbformat_3_is_upgraded(tmp_path: Path) -> None:
    nb3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [
            {"cells": [{"cell_type": "code", "input": "z = 3", "language": "python", "outputs": [], "metadata": {}}]}
        ],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(nb3))
    assert read_submission(path).cells[0].source == "z = 3"


@pytest.mark.parametrize(
    "content, phrase",
    [
        (b"", "is empty"),
        (b"   \n", "is empty"),
        (b"{not json", "not a readable Jupyter notebook"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "not a text notebook"),
        (b'\xff\xfe{"cells": []}', "not a text notebook"),
        (b'{"nbformat": 4}', "not a readable Jupyter notebook"),
        (b"[1, 2, 3]", "not a readable Jupyter notebook"),
    ],
)
def test_unreadable_files_get_one_actionable_sentence(tmp_path: Path, content: bytes, phrase: str) -> None:
    path = tmp_path / "bad.ipynb"
    path.write_bytes(content)
    with pytest.raises(NotebookUnreadable) as err:
        read_submission(path)
    message = str(err.value)
    assert phrase in message and "bad.ipynb" in message
    assert "\n" not in message and "Traceback" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(NotebookUnreadable, match="no such file"):
        read_submission(tmp_path / "nope.ipynb")
