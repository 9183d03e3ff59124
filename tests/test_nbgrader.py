"""nbgrader: the test cells of the lesson's nbgrader source notebook (built by ``grade build``) give nbgrader's
``autograde`` the same per-question scores as ``grade --json`` (partial credit included, and 0 read as 0), and
``export_to_gradebook`` writes ``grade``'s scores into a gradebook that ``nbgrader export`` reads. Real
nbgrader, in a temporary course folder, with its default preprocessors (``generate_assignment`` clears the
solution regions)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.integrations.nbgrader import export_to_gradebook, grade_cell_id, nbgrader_cell_score
from grader.lessons import load_lesson
from grader.report import report_from_dict
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, run_grade
from tests.integration_support import MIX, PARTLY_WRONG, mix_notebook, reference_report, reference_scores

ASSIGNMENT = "ps1"
#: nbgrader fails a notebook whose kernel is silent 4 s after a cell's reply (its ``raise_on_iopub_timeout``); on
#: a loaded 2-core machine running the suite in parallel it was (Python 3.10, tests/test_variant_class.py).
CONFIG = """\
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "course101"
c.CourseDirectory.db_url = {db!r}
c.Execute.iopub_timeout = 60
"""
#: The nbgrader source notebook ``grade build`` writes for the Decode lesson.
NBGRADER_SOURCE = REPO / "exercises" / "decode" / "nbgrader" / "decode.ipynb"


def nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADER_LESSONS": str(REPO / "exercises")}
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def submission_from(released: Path, answers: Any, path: Path) -> Path:
    """The released nbgrader notebook with its answer cells (id = question id) taken from ``answers``."""
    nb = nbformat.read(released, as_version=4)
    given = {c.id: c.source for c in answers.cells if c.cell_type == "code"}
    questions = {q.id for q in load_lesson("decode").questions}
    for cell in nb.cells:
        if cell.get("id") in questions:
            cell.source = given[cell.id]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def cell_scores(url: str, student: str, notebook: str = "decode", assignment: str = ASSIGNMENT) -> dict[str, float]:
    """Per question, the score nbgrader's gradebook holds for one student's notebook."""
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        grades = gb.find_submission_notebook(notebook, assignment, student).grades
        return {g.name.removeprefix("test_"): float(g.score) for g in grades}


# -- the test cell's contract, in this process ------------------------------------------------------------------


def test_a_test_cell_prints_feedback_and_returns_its_score(capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, Any] = {}
    exec("\n".join([SQUARES_SOLVED[0], "def square(x):\n    return x + x", SQUARES_SOLVED[2]]), namespace)
    assert nbgrader_cell_score("squares", "sum_of_squares", namespace, FIXTURE_LESSONS) == 2.0
    out = capsys.readouterr()
    assert "sum_of_squares: 2/2" in out.out and out.err == ""


@pytest.mark.slow
def test_a_zero_goes_to_stderr_with_no_value_so_nbgrader_reads_zero(capsys: pytest.CaptureFixture[str]) -> None:
    from nbformat.v4 import new_code_cell, new_output
    from nbgrader.utils import determine_grade

    namespace: dict[str, Any] = {}
    exec("def square(x):\n    return x + x", namespace)
    assert nbgrader_cell_score("squares", "square", namespace, FIXTURE_LESSONS) is None
    out = capsys.readouterr()
    assert out.out == "" and "square: 0/2" in out.err and "square(3) returned 6" in out.err
    # What a kernel records for that cell, and what nbgrader makes of it; an output of 0 would not be safe.
    cell = new_code_cell(
        "", metadata={"nbgrader": {"grade": True, "solution": False, "points": 2, "grade_id": "test_square"}}
    )
    cell.outputs = [new_output("stream", name="stderr", text=out.err)]
    assert determine_grade(cell) == (0, 2.0)
    cell.outputs = [
        new_output("stream", name="stdout", text="~ square: 1/2\n"),
        new_output("execute_result", {"text/plain": "1.0"}, execution_count=1),
    ]
    assert determine_grade(cell) == (1.0, 2.0)


@pytest.mark.slow
def test_a_loop_that_never_ends_costs_only_its_question_as_in_grade(
    capsys: pytest.CaptureFixture[str], write_notebook: Callable[..., Path]
) -> None:
    cells = [SQUARES_SOLVED[0], "def square(x):\n    while True:\n        pass", SQUARES_SOLVED[2]]
    namespace: dict[str, Any] = {}
    exec("\n".join(cells), namespace)
    scores = {
        q: nbgrader_cell_score("squares", q, namespace, FIXTURE_LESSONS) or 0.0
        for q in ("square", "answer_even", "sum_of_squares")
    }
    assert "square(3) did not return in time and was stopped" in capsys.readouterr().err
    graded = json.loads(run_grade(str(write_notebook(cells)), "--json", "--lessons", str(FIXTURE_LESSONS)).stdout)
    assert (
        scores
        == {q["id"]: q["score"] for q in graded["questions"]}
        == {"square": 0.0, "answer_even": 1.0, "sum_of_squares": 2.0}
    )


def test_each_question_has_one_locked_self_check_test_cell_worth_its_points_after_every_answer() -> None:
    lesson = load_lesson("decode")
    nb = nbformat.read(NBGRADER_SOURCE, as_version=4)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    assert set(cells) == {grade_cell_id(q.id) for q in lesson.questions}
    for q in lesson.questions:
        cell = cells[grade_cell_id(q.id)]
        meta = cell.metadata["nbgrader"]
        assert (meta["points"], meta["locked"], meta["solution"], meta["schema_version"]) == (q.points, True, False, 3)
        assert (
            "self-check" in cell.metadata["tags"]
            and f'nbgrader_cell_score("decode", "{q.id}", globals())' in cell.source
        )
    kinds = [
        "test" if c.metadata["nbgrader"]["grade"] else "answer"
        for c in nb.cells
        if c.metadata["nbgrader"]["grade"] or c.metadata["nbgrader"]["solution"]
    ]
    assert kinds == ["answer"] * len(lesson.questions) + ["test"] * len(lesson.questions)


# -- nbgrader autograde in a course folder ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A course whose ps1 is the lesson notebook, with the mix submitted and autograded."""
    root = tmp_path_factory.mktemp("course")
    url = f"sqlite:///{root / 'gradebook.db'}"
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root), db=url))
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    (root / "source" / ASSIGNMENT / "decode.ipynb").write_bytes(NBGRADER_SOURCE.read_bytes())
    nbgrader("generate_assignment", ASSIGNMENT, cwd=root)
    released = root / "release" / ASSIGNMENT / "decode.ipynb"
    for kind in MIX:
        submission_from(released, mix_notebook(kind), root / "submitted" / kind / ASSIGNMENT / "decode.ipynb")
    nbgrader("autograde", ASSIGNMENT, cwd=root)
    yield root, url


@pytest.mark.slow
def test_generate_assignment_clears_the_solutions_and_keeps_every_other_cell(course: tuple[Path, str]) -> None:
    root, _ = course
    released = nbformat.read(root / "release" / ASSIGNMENT / "decode.ipynb", as_version=4)
    source = nbformat.read(NBGRADER_SOURCE, as_version=4)
    assert [c.id for c in released.cells] == [c.id for c in source.cells]
    for before, after in zip(source.cells, released.cells, strict=False):
        if before.metadata["nbgrader"]["solution"]:
            assert "BEGIN SOLUTION" in before.source and "raise NotImplementedError" in after.source, after.id
            assert "SOLUTION" not in after.source, after.id
        else:
            assert after.source == before.source, after.id


@pytest.mark.slow
@pytest.mark.parametrize("kind", MIX)
def test_autograde_gives_the_scores_of_grade_json(course: tuple[Path, str], kind: str) -> None:
    _, url = course
    assert cell_scores(url, kind) == pytest.approx(reference_scores(kind), abs=1e-9)


@pytest.mark.slow
def test_partial_credit_and_zero_reach_nbgrader_as_intended(course: tuple[Path, str]) -> None:
    root, url = course
    expected = reference_scores("partly_wrong")
    assert 0 < expected["generate"] < 4 and expected["gb_per_step"] == 0  # the mix covers both cases
    graded = nbformat.read(root / "autograded" / "partly_wrong" / ASSIGNMENT / "decode.ipynb", as_version=4)
    outputs = {c.id: c.outputs for c in graded.cells if c.get("id", "").startswith("test_")}
    for qid in PARTLY_WRONG:
        kinds = [(o.output_type, o.get("name")) for o in outputs[grade_cell_id(qid)]]
        if expected[qid] > 0:
            assert ("execute_result", None) in kinds and ("stream", "stderr") not in kinds, qid
        else:
            assert kinds == [("stream", "stderr")], qid
    assert all(score == 0 for score in cell_scores(url, "untouched").values())


@pytest.mark.slow
def test_exporting_grade_reports_over_autograde_changes_no_score(course: tuple[Path, str]) -> None:
    _, url = course
    rows = [(kind, report_from_dict(reference_report(kind))) for kind in MIX]
    export_to_gradebook(url, load_lesson("decode"), rows, assignment=ASSIGNMENT)
    for kind in MIX:
        assert cell_scores(url, kind) == pytest.approx(reference_scores(kind), abs=1e-9)


# -- export_to_gradebook on its own -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*not in session, add operation along")  # nbgrader's own add_submission, below
def test_export_to_gradebook_is_what_nbgrader_export_reports(tmp_path: Path) -> None:
    from nbgrader.api import Gradebook

    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    lesson = load_lesson("decode")
    with Gradebook(url) as gb:  # a learner whose submission predates our grade cells (another tool made it)
        gb.update_or_create_assignment("decode")
        gb.update_or_create_student("untouched")
        gb.update_or_create_submission("decode", "untouched")
    rows = [(kind, report_from_dict(reference_report(kind))) for kind in MIX]
    export_to_gradebook(url, lesson, rows[:2])
    export_to_gradebook(url, lesson, rows)  # again, and with one more learner: updates, never duplicates
    for kind in MIX:
        assert cell_scores(url, kind, assignment="decode") == pytest.approx(reference_scores(kind), abs=1e-9)
    with Gradebook(url) as gb:
        grades = [g for kind in MIX for g in gb.find_submission_notebook("decode", "decode", kind).grades]
        assert len(grades) == 3 * len(lesson.questions) and not any(g.needs_manual_grade for g in grades)
    nbgrader("export", "--db", url, "--to", str(tmp_path / "grades.csv"), cwd=tmp_path)
    with open(tmp_path / "grades.csv", newline="") as f:
        exported = {row["student_id"]: row for row in csv.DictReader(f)}
    assert set(exported) == set(MIX)
    for kind in MIX:
        row = exported[kind]
        assert (row["assignment"], float(row["max_score"])) == ("decode", lesson.max_score)
        assert float(row["raw_score"]) == pytest.approx(reference_report(kind)["score"], abs=1e-6)
