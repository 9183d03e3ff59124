"""The gates every lesson of the course passes, parametrized over the lessons the lessons folder holds.

A lesson is held to them the day it lands, with no test to write: its committed notebooks are a fresh
``grade build`` of its source; its mistakes corpus (``<lesson>/mistakes/``, the one wrong-answer corpus every
test reads) is well formed, has wrong answers for every question and right ones, and passes ``grade corpus``;
``grade audit`` explains every survivor; ``grade`` gives its solution full marks and its untouched notebook
nothing, every question "not attempted"; nbgrader's test cells score every corpus answer as ``grade`` does; and
its Gradescope bundle carries the very lesson graded here (suites, definition, solution, course secret).

What is graded is graded once per test session, in one batch per lesson (the ``graded`` fixture,
:func:`tests.lesson_support.graded_lesson`): the corpus, the audit's mutants and controls, the solution and the
untouched notebook, through ``grade batch``'s path. What is the same code for every lesson is tested once, on
Decode, elsewhere: ``grade NOTEBOOK`` on its solution and untouched notebook (tests/test_decode.py) and the
bundle's ``run_autograder`` end to end (tests/test_gradescope.py).

The lessons are those of :func:`grader.config.lessons_root` (``$GRADER_LESSONS``, else the course folder the
tests run in), so the same gates run on any course: the last test copies the squares fixture into a
temporary course as a second lesson and checks that every gate here picks it up.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.authoring.build import artefact_texts, build_lesson, source_path
from grader.authoring.corpus import compare, load_corpus
from grader.config import lessons_root
from grader.lessons import available_lessons, load_lesson, suites_fingerprint
from grader.model import Lesson
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO
from tests.lesson_support import GradedLesson, graded_lesson, nbgrader_disagreements

ROOT = lessons_root()
LESSONS = available_lessons(ROOT)
#: Wrong answers the corpus must hold for each question, and right answers in all.
WRONG_PER_QUESTION = 2
RIGHT_ANSWERS = 1


@pytest.fixture(scope="session", params=LESSONS)
def lesson_id(request: pytest.FixtureRequest) -> str:
    """Each lesson of the course; session-scoped, so pytest runs one lesson's gates together and the lesson's
    ``graded`` batch is made once and freed before the next lesson's."""
    return str(request.param)


@pytest.fixture(scope="session")
def graded(lesson_id: str) -> GradedLesson:
    """The lesson's corpus, audit variants, solution and untouched notebook, graded in one batch for every gate."""
    return graded_lesson(_lesson(lesson_id))


def _lesson(lesson_id: str) -> Lesson:
    return load_lesson(lesson_id, ROOT)


def test_the_course_has_lessons() -> None:
    assert LESSONS, f"no lessons in {ROOT}"


def test_the_committed_notebooks_are_a_fresh_build_of_the_source(lesson_id: str) -> None:
    lesson = _lesson(lesson_id)
    stale = [
        str(path)
        for path, fresh in artefact_texts(lesson).items()
        if not path.is_file() or path.read_text(encoding="utf-8") != fresh
    ]
    assert not stale, (
        f"{', '.join(stale)} not what `grade build {lesson.root}` makes from {source_path(lesson)}: "
        "edit the source, not the notebook, then run grade build."
    )


def test_the_corpus_has_wrong_answers_for_every_question_and_right_ones(lesson_id: str) -> None:
    """Cheap guard for authors: every header is well formed (load_corpus raises otherwise), and the corpus tests
    every question with at least WRONG_PER_QUESTION mistakes."""
    lesson = _lesson(lesson_id)
    entries = load_corpus(lesson)
    thin = {
        q.id: names
        for q in lesson.questions
        if len(names := [e.name for e in entries if (x := e.expected(q.id)) is not None and x.wrong])
        < WRONG_PER_QUESTION
    }
    assert not thin, f"questions with fewer than {WRONG_PER_QUESTION} wrong answers in {lesson.root}/mistakes: {thin}"
    assert sum(e.kind == "correct" for e in entries) >= RIGHT_ANSWERS, "the corpus has no correct answer"


@pytest.mark.slow
def test_the_corpus_is_caught_and_named_and_its_right_answers_keep_full_marks(
    lesson_id: str, graded: GradedLesson
) -> None:
    report = compare(_lesson(lesson_id), graded.entries, graded.corpus)
    assert report.ok, "\n" + "\n".join(report.lines())


@pytest.mark.slow
def test_nbgrader_test_cells_and_grade_agree_on_every_corpus_answer(lesson_id: str, graded: GradedLesson) -> None:
    """What an nbgrader test cell scores (in the kernel's namespace, ``cell_result``) is what ``grade`` scores
    (in the isolated worker), question by question, for every answer of the corpus."""
    assert nbgrader_disagreements(_lesson(lesson_id), (graded.entries, graded.corpus)) == []


@pytest.mark.slow
def test_the_audit_explains_every_survivor(graded: GradedLesson) -> None:
    from grader.authoring.audit.report import format_text

    report = graded.audit
    assert sum(f.graded for f in report.functions) > 0, format_text(report)
    assert not report.stale, format_text(report)
    assert report.ok, format_text(report)


@pytest.mark.slow
def test_grade_gives_the_solution_full_marks_and_the_untouched_notebook_nothing(
    lesson_id: str, graded: GradedLesson
) -> None:
    lesson = _lesson(lesson_id)
    questions = sorted(q.id for q in lesson.questions)
    for row in (graded.solution, graded.notebook):
        assert row["status"] == "graded" and sorted(q["id"] for q in row["questions"]) == questions, row
    assert graded.solution["score"] == graded.solution["max_score"] == lesson.max_score, graded.solution
    assert graded.notebook["score"] == 0
    assert {q["status"] for q in graded.notebook["questions"]} == {"not-attempted"}


def test_every_generated_test_replays_its_examples(
    lesson_id: str, suite_session: Callable[[Lesson], SuiteSession]
) -> None:
    """Hypothesis draws a property's examples once per lesson version, and every later learner's grading replays
    them (README, "Examples drawn once, replayed for every learner"). A property that rejects examples
    (``assume``), draws in its body (``st.data()``) or is not derandomized is drawn again by the engine for every
    learner: Batching's count test cost 15-20 ms of each notebook's grading so, until its replicas were
    drawn directly (bench/RESULTS.md, round 16). Once the solution has passed, every property has examples."""
    from grader.suites.namespace import NamespaceTarget
    from grader.suites.reference import solution_namespace

    lesson = _lesson(lesson_id)
    suites = suite_session(lesson)
    outcomes = suites.run(NamespaceTarget(solution_namespace(lesson.solution)))
    assert all(o.status == "passed" for o in outcomes), [o for o in outcomes if o.status != "passed"]
    assert suites.unreplayed == (), (
        f"these generated tests of {lesson_id} are drawn again by hypothesis for every learner: {suites.unreplayed}; "
        "draw only valid inputs (a strategy built for them, not assume), and draw no value in the body"
    )


def test_the_gradescope_bundle_carries_the_lesson_graded_here(lesson_id: str, tmp_path: Path) -> None:
    """Unzipped as Gradescope does, the bundle holds this lesson as graded here (its suites, definition and
    solution: the same fingerprint; its course secret) and ``run_autograder`` grades it: what differs from lesson
    to lesson. The scripts grading end to end is the same code for every lesson (tests/test_gradescope.py)."""
    from grader.integrations.gradescope_bundle import build_bundle
    from grader.params import course_secret

    lesson = _lesson(lesson_id)
    build_bundle(lesson, tmp_path / "bundle.zip")
    with zipfile.ZipFile(tmp_path / "bundle.zip") as zf:
        zf.extractall(tmp_path / "source")
    bundled = load_lesson(lesson.id, tmp_path / "source" / "exercises")
    assert suites_fingerprint(bundled) == suites_fingerprint(lesson)
    assert bundled.questions == lesson.questions and bundled.max_score == lesson.max_score
    if lesson.params:
        assert course_secret(bundled.root.parent) == course_secret(lesson.root.parent)
    script = (tmp_path / "source" / "run_autograder").read_text(encoding="utf-8")
    assert f"--lesson {lesson.id} " in script


# -- a new lesson is held to every gate ----------------------------------------------------------------------------

NEW = "scratchlesson"

#: The squares fixture's solution, as a ``grade build`` source.
NEW_SOURCE = """# %% [markdown]
# # Squares, again

# %% question="answer_even"
### STUB answer_even = None  # "A" (yes) or "B" (no)
### BEGIN SOLUTION
answer_even = "A"
### END SOLUTION

# %% question="square"
def square(x):
    ### BEGIN SOLUTION
    return x * x
    ### END SOLUTION

# %% question="sum_of_squares"
def sum_of_squares(xs):
    ### BEGIN SOLUTION
    return sum(square(x) for x in xs)
    ### END SOLUTION
"""

#: A second wrong answer for the choice question (the squares fixture has one).
NEW_MISTAKE = """# kind: wrong
# about: says 4 is odd
# expect answer_even: wrong /which is not right/

answer_even = "B"
"""


def _by_lesson(test: object) -> bool:
    return callable(test) and bool({"lesson_id", "graded"} & set(inspect.signature(test).parameters))


def _gates() -> list[str]:
    """Every test of this module that is parametrized over the lessons: the gates."""
    return sorted(name for name, value in globals().items() if name.startswith("test_") and _by_lesson(value))


@pytest.mark.slow
def test_a_new_lesson_is_held_to_every_gate_without_a_test_of_its_own(tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(REPO / "exercises", course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("notebooks", "solutions"):
        shutil.copytree(REPO / name, course / name)
    folder = course / "exercises" / NEW
    shutil.copytree(FIXTURE_LESSONS / "squares", folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "lesson.toml"
    toml.write_text(re.sub(r'^id = "squares"', f'id = "{NEW}"', toml.read_text(), flags=re.M), encoding="utf-8")
    (folder / f"{NEW}.py").write_text(NEW_SOURCE, encoding="utf-8")
    (folder / "mistakes" / "even_says_odd.py").write_text(NEW_MISTAKE, encoding="utf-8")
    build_lesson(load_lesson(NEW, course / "exercises"), tmp_path / "bundle")

    env = {**os.environ, "GRADER_LESSONS": str(course / "exercises"), "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        # no cache: this run's results must not become the outer run's `--lf` list
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", str(Path(__file__)), "-k", NEW],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=900,
    )  # fmt: skip
    passed = set(re.findall(rf"^PASSED \S+::(\w+)\[{NEW}\]$", result.stdout, re.M))
    assert _gates() and passed == set(_gates()), result.stdout[-4000:]
    assert result.returncode == 0, result.stdout[-4000:]
