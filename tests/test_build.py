"""``grade build``: every artefact of a lesson comes from its one source, the committed ones are fresh, and the
learner's notebook holds nothing but the lesson and one self-check per question."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.build import (
    LessonSourceError,
    artefact_texts,
    build_notebooks,
    nbgrader_path,
    read_source,
    source_path,
)
from grader.config import SKIP_TAG
from grader.lessons import load_lesson
from tests.conftest import REPO, run_grade

LESSON = load_lesson("decode")
QUESTIONS = [q.id for q in LESSON.questions]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


# -- freshness -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["learner", "solution", "nbgrader"])
def test_the_committed_notebooks_are_a_fresh_build_of_the_source(name: str) -> None:
    path = {"learner": LESSON.notebook, "solution": LESSON.solution, "nbgrader": nbgrader_path(LESSON)}[name]
    fresh = artefact_texts(LESSON)[path]
    assert path.read_text(encoding="utf-8") == fresh, (
        f"{path.relative_to(REPO)} is not what `grade build exercises/decode` makes from {source_path(LESSON).relative_to(REPO)}: "
        "edit the source, not the notebook, then run grade build."
    )


def test_a_hand_edit_of_a_built_notebook_is_caught(tmp_path: Path) -> None:
    """What the freshness test compares: a one-character change in any cell makes the texts differ."""
    nb = _read(LESSON.notebook)
    nb.cells[0].source += "!"
    assert nbformat.writes(nb) + "\n" != artefact_texts(LESSON)[LESSON.notebook]


@pytest.mark.slow
def test_grade_build_in_a_fresh_folder_writes_the_committed_files_and_the_gradescope_zip(tmp_path: Path) -> None:
    for part in ("exercises/decode", "notebooks", "solutions"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for built in (tmp_path / "notebooks" / "decode.ipynb", tmp_path / "solutions" / "decode.ipynb", tmp_path / "exercises/decode/nbgrader/decode.ipynb"):
        built.unlink()
    result = run_grade("build", str(tmp_path / "exercises" / "decode"), "--bundle-dir", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for rel in ("notebooks/decode.ipynb", "solutions/decode.ipynb", "exercises/decode/nbgrader/decode.ipynb"):
        assert (tmp_path / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    with zipfile.ZipFile(tmp_path / "out" / "decode-gradescope-autograder.zip") as zf:
        names = set(zf.namelist())
    assert {"setup.sh", "run_autograder", "exercises/decode/lesson.toml", "solutions/decode.ipynb"} <= names


def test_a_source_without_an_answer_cell_for_a_question_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "decode"
    shutil.copytree(LESSON.root, folder)
    text = source_path(LESSON).read_text(encoding="utf-8").replace('# %% question="generate"', "# %%")
    (folder / "decode.py").write_text(text, encoding="utf-8")
    with pytest.raises(LessonSourceError, match=r"missing \['generate'\]|has solution or stub markers but no question"):
        read_source(load_lesson("decode", tmp_path))


def test_an_answer_cell_without_a_solution_region_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "decode"
    shutil.copytree(LESSON.root, folder)
    text = source_path(LESSON).read_text(encoding="utf-8")
    start = text.index('# %% question="request_time"')
    cell = text[start : text.index("# %%", start + 5)]
    (folder / "decode.py").write_text(text.replace(cell, cell.replace("### BEGIN SOLUTION\n", "").replace("### END SOLUTION\n", "")), encoding="utf-8")
    with pytest.raises(LessonSourceError, match="request_time.*needs one ### BEGIN SOLUTION"):
        read_source(load_lesson("decode", tmp_path))


# -- what each notebook holds ------------------------------------------------------------------------------------

def test_the_learner_notebook_is_only_for_learners() -> None:
    nb = _read(LESSON.notebook)
    assert nb.metadata["grader"] == {"lesson": "decode"}
    text = nbformat.writes(nb)
    for internal in ("nbgrader", "grader.integrations", "BEGIN SOLUTION", "### STUB"):
        assert internal not in text, internal
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    checks = [c for c in code if c.source.startswith("check(")]
    assert [c.source for c in checks] == [f'check("{q}")' for q in QUESTIONS]
    assert all(c.metadata.get("tags") == [SKIP_TAG] for c in checks)
    ids = [c.id for c in nb.cells]
    for q in QUESTIONS:  # each check right after its answer cell: one result per question, where it is answered
        assert ids[ids.index(q) + 1] == f"check_{q}"


def test_learner_and_solution_differ_only_in_the_answer_cells() -> None:
    learner, solution = _read(LESSON.notebook), _read(LESSON.solution)
    assert [c.id for c in learner.cells] == [c.id for c in solution.cells]
    differ = {a.id for a, b in zip(learner.cells, solution.cells) if a.source != b.source}
    assert differ == set(QUESTIONS)


def test_stubs_are_the_authors_or_a_not_implemented_error_at_the_regions_indentation() -> None:
    built = build_notebooks(read_source(LESSON))
    cells = {c.id: c.source for c in built.learner.cells}
    assert cells["gb_per_step"] == "gb_per_step = None  # your answer, in GB"
    assert cells["generate"].endswith(
        '\n    raise NotImplementedError("Write generate here: replace this line with your code, then run the cell.")'
    )
    solutions = {c.id: c.source for c in built.solution.cells}
    assert "STUB" not in solutions["gb_per_step"] and "gb_per_step = 14" in solutions["gb_per_step"]


def test_the_nbgrader_notebook_has_solution_regions_and_every_test_after_every_answer() -> None:
    nb = _read(nbgrader_path(LESSON))
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    assert all(m["schema_version"] == 3 and m["grade_id"] == c.id for m, c in zip(meta, nb.cells))
    answers = [i for i, m in enumerate(meta) if m["solution"]]
    tests = [i for i, m in enumerate(meta) if m["grade"]]
    assert [nb.cells[i].id for i in answers] == QUESTIONS and len(tests) == len(QUESTIONS)
    assert max(answers) < min(tests)
    assert all("### BEGIN SOLUTION" in nb.cells[i].source for i in answers)
    assert sum(m["points"] for m in meta if m["grade"]) == LESSON.max_score
