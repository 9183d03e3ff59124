"""nbgrader: autograder test cells that score one question in nbgrader's kernel, and writing scores to a gradebook.

**Test cells.** The lesson's nbgrader notebook (``exercises/<lesson>/nbgrader/``, built by
:mod:`grader.authoring.build`) ends with one locked nbgrader grade cell per question (``grade_id``
``test_<question>``, ``points`` from ``lesson.toml``), after every answer cell, whose code is::

    from grader.integrations.nbgrader import nbgrader_cell_score
    nbgrader_cell_score("decode", "generate", globals())

It runs the question's hidden tests against the kernel's namespace with the self-check machinery
(:func:`grader.selfcheck.question_results`: the same suites and the same scoring as ``grade``) and reports
the score the way nbgrader's ``determine_grade`` reads it: a score above 0 is the cell's value (its
``execute_result``, read as partial credit); a score of 0 is written to stderr with no value, because
nbgrader reads any stderr output as 0 points, while an output of ``0`` was read as *full* marks by releases
from before the fix of jupyter/nbgrader#1374 (2021). Writing to stderr rather than raising keeps "Run All"
going in Jupyter. Everything the tests themselves print is captured, so a stray warning cannot cost the
points, and each call of a learner function has ``grade``'s time limit, so a loop that never ends costs
only its own question.

**Gradebook.** :func:`export_to_gradebook` writes ``grade``'s scores into an nbgrader database, following
the steps nbgrader's own ``SaveAutoGrades`` takes, so formgrader and ``nbgrader export`` show them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.errors import GraderError
from grader.model import Lesson, Params, QuestionResult, Report

if TYPE_CHECKING:
    from nbgrader.api import Gradebook


def grade_cell_id(question_id: str) -> str:
    """The nbgrader ``grade_id`` of a question's autograder test cell."""
    return f"test_{question_id}"


def cell_result(
    lesson_id: str, question_id: str, namespace: dict[str, Any], lessons: str | Path | None = None
) -> QuestionResult:
    """Score one question against a live namespace, exactly as ``grade`` scores it from the same tests."""
    from grader.lessons import load_lesson
    from grader.selfcheck import NamespaceTarget, question_results

    lesson = load_lesson(lesson_id, Path(lessons) if lessons else None)
    lesson.question(question_id)  # an unknown id is an instructor's mistake: fail loudly
    params = student_params(lesson, Path.cwd())
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        (result,) = question_results(lesson, NamespaceTarget(namespace), [question_id], params)
    using = {q for p in lesson.params for q in p.questions}
    note = numbers_note(lesson, Path.cwd(), params) if params is not None and question_id in using else None
    if note is None:
        return result
    return replace(result, feedback=(note, *result.feedback), staff_feedback=(note, *result.staff))


#: What an nbgrader course does to give each student their own numbers (nbgrader releases one notebook to all).
ROSTER_RELEASE = (
    "nbgrader releases one notebook to every student, on the lesson page's numbers: give each student their own "
    "from `grade build exercises/{lesson} --roster roster.csv --nbgrader` instead of `nbgrader release_assignment`."
)


def numbers_note(lesson: Lesson, cwd: Path, params: Params) -> str | None:
    """A flag when the notebook being autograded (in ``cwd``) shows other numbers than the student's own, which
    it is graded on: another student's (a swapped notebook) or the page's (nbgrader's own release); else None.

    The numbers it shows are its display copy, in the notebook file nbgrader wrote to ``cwd`` before running it
    (nbgrader overwrites the locked setup cell that also states them)."""
    from grader.params import default_params, swap_note
    from grader.read import read_submission

    for path in sorted(cwd.glob("*.ipynb")):
        try:
            submission = read_submission(path)
        except GraderError:
            continue
        if submission.lesson_id != lesson.id:
            continue
        note = swap_note(lesson, submission, params)
        if note is not None and not submission.shown_params and params != default_params(lesson):
            note += " " + ROSTER_RELEASE.format(lesson=lesson.id)
        return note
    return None


def released_form(notebook: Any) -> Any:
    """The nbgrader source notebook ``notebook`` as ``nbgrader generate_assignment`` releases it, by nbgrader's own
    steps (its solutions cleared, its cells locked and checksummed), leaving out the two that need a course folder
    (the header and footer, and saving the cells to the gradebook): what one student of a roster is given."""
    from nbgrader import preprocessors as nbp

    steps = (
        nbp.LockCells,
        nbp.ClearSolutions,
        nbp.ClearOutput,
        nbp.CheckCellMetadata,
        nbp.ComputeChecksums,
        nbp.ClearHiddenTests,
        nbp.ClearMarkScheme,
        nbp.ComputeChecksums,
        nbp.CheckCellMetadata,
    )
    resources: dict[str, Any] = {}
    for step in steps:
        notebook, resources = step().preprocess(notebook, resources)
    return notebook


#: The folder ``nbgrader autograde`` runs each notebook in: ``autograded/<student id>/<assignment>/``.
AUTOGRADED = "autograded"


def autograded_student(cwd: Path) -> str | None:
    """The student id of the notebook ``nbgrader autograde`` is running, from the folder it runs in; None elsewhere."""
    return cwd.parent.name if cwd.parent.parent.name == AUTOGRADED and cwd.parent.name else None


def student_params(lesson: Lesson, cwd: Path) -> Params | None:
    """The learner parameters of the student being autograded (their nbgrader student id is their learner id, as
    in a batch of nbgrader's folders); None (the lesson page's numbers) outside ``nbgrader autograde``."""
    student = autograded_student(cwd)
    if not lesson.params or student is None:
        return None
    from grader.params import course_secret, learner_params

    return learner_params(lesson, student, course_secret(lesson.root.parent))


def nbgrader_cell_score(
    lesson_id: str, question_id: str, namespace: dict[str, Any], lessons: str | Path | None = None
) -> float | None:
    """The body of an nbgrader test cell: print feedback and return the partial score (``None`` for 0).

    The return value is the cell's last expression, which nbgrader reads as the points earned. A score of
    0 returns ``None`` (no value) and writes the feedback to stderr, which nbgrader scores as 0.
    """
    from grader.selfcheck import describe

    result = cell_result(lesson_id, question_id, namespace, lessons)
    text = describe(result, detail=True)
    if result.score > 0:
        print(text)
        return float(result.score)
    print(text, file=sys.stderr)
    return None


def require_nbgrader() -> None:
    """Raise :class:`ModuleNotFoundError` now if nbgrader is not installed (cheap: nothing is imported).

    For callers that export at the end of a long run (``grade batch --nbgrader-db``) and should fail first.
    """
    if importlib.util.find_spec("nbgrader") is None:
        raise ModuleNotFoundError("No module named 'nbgrader'; python3 -m pip install nbgrader", name="nbgrader")


def export_to_gradebook(
    url: str,
    lesson: Lesson,
    rows: list[tuple[str, Report]],
    assignment: str | None = None,
    *,
    course_id: str = "default_course",
) -> None:
    """Write each ``(student_id, report)`` into the nbgrader gradebook at ``url`` (an SQLAlchemy URL).

    The assignment (default: the lesson id), its notebook (the lesson notebook's file name) and one grade
    cell per question (``test_<question>``, ``max_score`` = its points) are created if missing, so the
    scores line up with the test cells ``nbgrader autograde`` would grade. Each question's score becomes
    the grade's ``auto_score``; a grade a person already scored by hand keeps that score and is flagged for
    review, as nbgrader's own autograder does. Re-exporting a student overwrites their auto scores.
    """
    from nbgrader.api import Gradebook

    name = assignment or lesson.id
    notebook = lesson.notebook.stem
    with warnings.catch_warnings(), Gradebook(url, course_id=course_id) as gb:
        # nbgrader's add_submission trips a harmless SQLAlchemy 2 autoflush warning on every new submission.
        warnings.filterwarnings("ignore", message=".*not in session, add operation along.*")
        gb.update_or_create_assignment(name)
        gb.update_or_create_notebook(notebook, name)
        for q in lesson.questions:
            gb.update_or_create_grade_cell(grade_cell_id(q.id), notebook, name, max_score=q.points, cell_type="code")
        for student, report in rows:
            scores = {r.id: r.score for r in report.questions}
            gb.update_or_create_student(student)
            gb.update_or_create_submission(name, student)
            for q in lesson.questions:
                grade = _grade(gb, grade_cell_id(q.id), notebook, name, student)
                grade.auto_score = float(scores.get(q.id, 0.0))
                grade.needs_manual_grade = grade.manual_score is not None
            gb.db.commit()


def _grade(gb: Gradebook, cell: str, notebook: str, assignment: str, student: str) -> Any:
    """The grade row of one cell; created if the submission predates the cell (another tool made it first)."""
    from nbgrader.api import Grade, MissingEntry, SubmittedNotebook

    try:
        return gb.find_grade(cell, notebook, assignment, student)
    except MissingEntry:
        pass
    submission = gb.find_submission(assignment, student)
    try:
        submitted = gb.find_submission_notebook(notebook, assignment, student)
    except MissingEntry:
        submitted = SubmittedNotebook(notebook=gb.find_notebook(notebook, assignment), assignment=submission)
        gb.db.add(submitted)
    grade = Grade(cell_id=gb.find_grade_cell(cell, notebook, assignment).id, notebook=submitted)
    gb.db.add(grade)
    gb.db.flush()
    return grade
