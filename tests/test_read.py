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
        (b'{"nbformat": 4, "nbformat_minor": 4.0, "metadata": {}, "cells": []}', "not a whole number"),
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


def test_nbformat_sees_only_what_grading_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Off the fast path (nbformat 3 here), nbformat used to build and validate the whole file in the batch's own
    process (no memory limit): millions of outputs or metadata values cost it seconds and gigabytes. It is now
    given the versions, the grader's metadata and each cell's type, source and tags, and reads them as before."""
    seen: list[int] = []
    reads = nbformat.reads
    monkeypatch.setattr(nbformat, "reads", lambda text, **kw: seen.append(len(text)) or reads(text, **kw))
    junk = [{"output_type": "stream", "stream": "stdout", "text": "x"}] * 20_000
    cell = {"cell_type": "code", "input": ["z = ", "3"], "language": "python", "outputs": junk,
            "metadata": {"tags": ["keep"], "junk": [{}] * 20_000}, "prompt_number": 1}  # fmt: skip
    params = {"items": 7}
    nb3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {"junk": [{}] * 20_000, "grader": {"lesson": "shop", "learner": "ada", "params": params}},
        "worksheets": [{"cells": [cell, {"cell_type": "markdown", "source": "# hi", "metadata": {}}]}],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(nb3))
    sub = read_submission(path)
    assert [(c.source, c.index) for c in sub.cells] == [("z = \n3", 0)]  # as nbformat joins version 3's lines
    assert sub.lesson_id == "shop" and sub.shown_params == (("items", 7),) and sub.shown_learner == "ada"
    assert seen and max(seen) < 2_000, seen  # the file is ~1.4 MB


@pytest.mark.parametrize("major", [3, 4])
@pytest.mark.parametrize("lines", [["a = 1\n", "b = 2"], ["a = 1", "b = 2"], [], ["x"]])
def test_sources_are_joined_as_nbformat_joins_them(tmp_path: Path, major: int, lines: list[str]) -> None:
    """Off the fast path (a float minor version: nbformat's own reading, unchanged), each version's lines are
    joined as nbformat joins them, so what is graded is what nbformat would have read."""
    from grader.read import _for_nbformat

    if major == 4:
        cell = {"cell_type": "code", "source": lines, "metadata": {}, "outputs": [], "execution_count": None}
        nb: dict[str, object] = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [cell]}
    else:
        cell = {"cell_type": "code", "input": lines, "language": "python", "outputs": [], "metadata": {}}
        nb = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [cell]}]}
    whole = nbformat.reads(json.dumps(nb), as_version=4)
    small = nbformat.reads(json.dumps(_for_nbformat(nb)), as_version=4)
    assert [c.source for c in small.cells] == [c.source for c in whole.cells]


def test_a_notebook_of_too_many_cells_is_refused(tmp_path: Path) -> None:
    cells = [{"cell_type": "raw", "metadata": {}, "source": ""}] * 10_001
    path = tmp_path / "many.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    with pytest.raises(NotebookUnreadable, match="more than 10,000 cells"):
        read_submission(path)
