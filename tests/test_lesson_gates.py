"""The gates every lesson of the course passes, parametrized over the lessons the lessons folder holds.

A lesson is held to them the day it lands, with no test to write: its committed notebooks are a fresh
``grade build`` of its source; its mistakes corpus (``<lesson>/mistakes/``, the one wrong-answer corpus every
test reads) is well formed, has wrong answers for every question and right ones, and passes ``grade corpus``;
``grade audit`` explains every survivor; the quickstart works for it (``grade`` gives its solution full
marks and its untouched notebook nothing, every question "not attempted"); nbgrader's test cells score every
corpus answer as ``grade`` does; and its Gradescope bundle, unzipped as Gradescope does, grades the solution
full and the untouched notebook zero through ``run_autograder``.

The lessons are those of :func:`grader.config.lessons_root` (``$GRADER_LESSONS``, else the course folder the
tests run in), so the same gates run on any course: the last test copies the squares fixture into a
temporary course as a second lesson and checks that every gate here picks it up.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from grader.authoring.build import artefact_texts, build_lesson, source_path
from grader.authoring.corpus import Entry, compare, load_corpus
from grader.config import lessons_root
from grader.lessons import available_lessons, load_lesson
from grader.model import Lesson
from tests.conftest import FIXTURE_LESSONS, REPO, run_grade
from tests.lesson_support import graded_corpus, nbgrader_disagreements

ROOT = lessons_root()
LESSONS = available_lessons(ROOT)
#: Wrong answers the corpus must hold for each question, and right answers in all.
WRONG_PER_QUESTION = 2
RIGHT_ANSWERS = 1

by_lesson = pytest.mark.parametrize("lesson_id", LESSONS)


def _lesson(lesson_id: str) -> Lesson:
    return load_lesson(lesson_id, ROOT)


def test_the_course_has_lessons() -> None:
    assert LESSONS, f"no lessons in {ROOT}"


@by_lesson
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


@by_lesson
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


@functools.cache
def _graded_corpus(lesson_id: str) -> tuple[tuple[Entry, ...], dict[str, dict[str, Any]]]:
    """The lesson's corpus and what ``grade`` gives each answer, graded once for the two gates that read it."""
    return graded_corpus(_lesson(lesson_id))


@pytest.mark.slow
@by_lesson
def test_the_corpus_is_caught_and_named_and_its_right_answers_keep_full_marks(lesson_id: str) -> None:
    report = compare(_lesson(lesson_id), *_graded_corpus(lesson_id))
    assert report.ok, "\n" + "\n".join(report.lines())


@pytest.mark.slow
@by_lesson
def test_nbgrader_test_cells_and_grade_agree_on_every_corpus_answer(lesson_id: str) -> None:
    """What an nbgrader test cell scores (in the kernel's namespace, ``cell_result``) is what ``grade`` scores
    (in the isolated worker), question by question, for every answer of the corpus."""
    assert nbgrader_disagreements(_lesson(lesson_id), _graded_corpus(lesson_id)) == []


@pytest.mark.slow
@by_lesson
def test_the_audit_explains_every_survivor(lesson_id: str) -> None:
    from grader.authoring.audit import audit_lesson
    from grader.authoring.audit.report import format_text

    report = audit_lesson(_lesson(lesson_id))
    assert sum(f.graded for f in report.functions) > 0, format_text(report)
    assert not report.stale, format_text(report)
    assert report.ok, format_text(report)


@pytest.mark.slow
@by_lesson
def test_grade_gives_the_solution_full_marks_and_the_untouched_notebook_nothing(lesson_id: str) -> None:
    lesson = _lesson(lesson_id)
    reports = {}
    for name, path in (("solution", lesson.solution), ("notebook", lesson.notebook)):
        result = run_grade(str(path), "--json", "--lessons", str(ROOT))
        assert result.returncode == 0, result.stderr
        reports[name] = json.loads(result.stdout)
    assert reports["solution"]["score"] == reports["solution"]["max_score"] == lesson.max_score, reports["solution"]
    assert reports["notebook"]["score"] == 0
    assert {q["status"] for q in reports["notebook"]["questions"]} == {"not-attempted"}


@pytest.mark.slow
@by_lesson
def test_the_gradescope_bundle_grades_the_solution_full_and_the_untouched_notebook_zero(
    lesson_id: str, tmp_path: Path
) -> None:
    """The bundle end to end, as cheaply as it can be: unzipped as Gradescope does, its ``run_autograder`` (with
    no virtual environment: this Python) grades a submission folder twice, the solution then the notebook."""
    from grader.integrations.gradescope_bundle import VENV_ENV, build_bundle

    lesson = _lesson(lesson_id)
    root = tmp_path / "autograder"
    build_bundle(lesson, tmp_path / "bundle.zip")
    with zipfile.ZipFile(tmp_path / "bundle.zip") as zf:
        zf.extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)  # zipfile does not restore permissions; Gradescope does
    env = {k: v for k, v in os.environ.items() if k != "GRADER_LESSONS"}
    env |= {"AUTOGRADER_ROOT": str(root), VENV_ENV: str(tmp_path / "no-venv"), "GRADER_DAEMON": "off"}
    for path, expected in ((lesson.solution, lesson.max_score), (lesson.notebook, 0.0)):
        shutil.rmtree(root / "submission", ignore_errors=True)
        (root / "submission").mkdir()
        shutil.copy(path, root / "submission" / path.name)
        run = subprocess.run(
            [str(root / "source" / "run_autograder")], capture_output=True, text=True, env=env, timeout=600
        )
        assert run.returncode == 0, run.stderr
        results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        assert results["score"] == pytest.approx(expected), (path.name, results["output"])
        assert len(results["tests"]) == len(lesson.questions)


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
    return any(m.name == "parametrize" and m.args[0] == "lesson_id" for m in getattr(test, "pytestmark", ()))


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
