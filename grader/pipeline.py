"""The grading recipe: read -> execute in isolation -> run hidden suites -> score.

:func:`grade_submission` grades an already-read submission inside an open :class:`SuiteSession` with the
workers a :class:`grader.execute.runner.Runner` lends. A :class:`grader.grader.Grader` holds both and calls
it (:func:`grader.grader.grade_notebook` grades one file); the rest here is what callers decide before:
the options, and which lesson a notebook is graded on.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE, LEARNER_MODULES, Limits, WorkerMode, limits_for, option
from grader.errors import ExecutionTimeout, UsageError, WorkerCrashed
from grader.execute.runner import Workers
from grader.lessons import available_lessons, require_solution
from grader.model import Execution, Lesson, Report, ReportStatus, Submission, TestOutcome
from grader.params import on_learner_numbers
from grader.read import read_submission
from grader.score import score

if TYPE_CHECKING:
    from grader.suites.session import SuiteSession


@dataclass(frozen=True)
class GradeOptions:
    """How to grade: everything a caller can choose about grading a notebook, defined once (each default is
    None or :mod:`grader.config`'s). Plain, picklable, hashable data: a batch sends it to its grading processes
    (:class:`grader.batch.work.Settings`), and a :class:`grader.grader.Grader` is built from it. Each field says
    whether it can change a score (:mod:`grader.staleness`: the lesson's three count through its content)."""

    lesson: str | None = option(None, affects_score=True)
    """Lesson id; by default the notebook's ``metadata.grader.lesson``."""
    suites: Path | None = option(None, affects_score=True)
    """A private copy of the hidden suites to use instead of the lesson's own."""
    lessons_root: Path | None = option(None, affects_score=True)
    """Where lesson definitions live; None: :func:`grader.config.lessons_root`."""
    limits: Limits = option(DEFAULT_LIMITS, affects_score=True)
    """How much a learner's worker may use."""
    mode: WorkerMode = option(DEFAULT_MODE, affects_score=True)
    """How a learner's worker runs: its isolation level, a real kernel or not."""

    @classmethod
    def of(
        cls,
        lesson: str | None,
        suites: Path | None,
        lessons_root: Path | None,
        timeout: float | None,
        kernel: bool = False,
        isolation: str | None = None,
    ) -> GradeOptions:
        """The options from what a command line gives (``timeout`` None: the default; ``isolation`` None:
        ``$GRADER_ISOLATION``, else ``auto``)."""
        limits = limits_for(timeout)
        mode = replace(DEFAULT_MODE, kernel=kernel, isolation=isolation)
        return cls(lesson=lesson, suites=suites, lessons_root=lessons_root, limits=limits, mode=mode)

    def for_any_lesson(self) -> GradeOptions:
        """These options without ``lesson``: what a :class:`grader.grader.Grader` is built from, since one Grader
        grades notebooks of any lesson (the caller says which, notebook by notebook)."""
        return replace(self, lesson=None)


def lesson_id_for(submission: Submission, options: GradeOptions) -> str:
    """``--lesson``, else the notebook's metadata, else the only lesson there is; :class:`UsageError` otherwise."""
    lesson_id = options.lesson or submission.lesson_id
    if lesson_id is None:
        known = available_lessons(options.lessons_root)
        if len(known) != 1:
            raise UsageError(
                f"{submission.path.name} does not say which lesson it belongs to; pass --lesson "
                f"(one of: {', '.join(known) or 'none found'})."
            )
        lesson_id = known[0]
    return lesson_id


def read_for_lesson(path: Path, options: GradeOptions, shown_as: Path | None = None) -> tuple[Submission, str]:
    """Read the notebook at ``path`` and say which lesson it is graded on (:func:`lesson_id_for`).

    ``shown_as``: the path reports and messages show (the one the learner typed), when it is not ``path``.
    """
    submission = read_submission(path)
    if shown_as is not None:
        submission = replace(submission, path=shown_as)
    return submission, lesson_id_for(submission, options)


def batch_lesson_id(options: GradeOptions) -> str:
    """The one lesson a batch grades: ``--lesson``, else the course's only lesson; :class:`UsageError` otherwise.

    Never a notebook's metadata: a learner must not choose what a class is graded (and exported) against.
    """
    if options.lesson:
        return options.lesson
    known = available_lessons(options.lessons_root)
    if len(known) != 1:
        if not known:
            raise UsageError("This course has no lessons: pass --lessons FOLDER, the folder of lesson definitions.")
        raise UsageError(
            f"This course has the lessons {', '.join(known)}: say which one this batch grades, e.g. "
            f"`grade batch SUBMISSIONS --lesson {known[0]} --out RESULTS`."
        )
    return known[0]


def other_lesson(submission: Submission, lesson_id: str) -> str | None:
    """Why ``submission`` is not graded on ``lesson_id``: its metadata names another lesson (None if not)."""
    declared = submission.lesson_id
    if declared is None or declared == lesson_id:
        return None
    shown = declared if len(declared) <= 60 else declared[:60] + "..."
    return (
        f"This notebook is for lesson {shown!r}, not {lesson_id!r} (its metadata.grader.lesson says so), so it was "
        f"not graded: submit your notebook for lesson {lesson_id!r}."
    )


def grade_submission(
    submission: Submission,
    lesson: Lesson,
    suites: SuiteSession,
    workers: Workers,
    solution: Submission | None,
    questions: frozenset[str] | None = None,
) -> Report:
    """Execute ``submission`` in a worker and run the suites against it; never raises for learner behaviour.

    ``workers`` (a :class:`Runner` lends them) say how the worker starts (forked from a warm zygote, or
    spawned), how it runs (its :class:`WorkerMode`) and under which :class:`Limits`; ``solution`` is the
    lesson's :func:`lent_solution`, whose functions the hidden tests lend; ``questions`` the questions whose tests
    run (None: all; the others score nothing, as unchecked).
    """
    worker = workers.start(submission)
    try:
        execution = worker.run_notebook()
    except ExecutionTimeout as err:
        return failed_report(lesson, submission, str(err), "timed-out", worker.isolation)
    except WorkerCrashed as err:
        return failed_report(lesson, submission, str(err), "crashed", worker.isolation)
    missing = missing_on_machine(execution)
    if missing is not None:  # a right notebook that imports numpy is not wrong where numpy is missing
        return failed_report(lesson, submission, missing, "crashed", worker.isolation)
    target = workers.target(submission, worker, solution)  # its workers end with ``workers`` (Workers.close)
    params, outcomes, copied, notes = on_learner_numbers(
        lesson, submission, lambda qs, on: suites.run(target, qs, on), questions
    )
    missing = missing_on_machine(execution, outcomes)
    if missing is not None:
        return failed_report(lesson, submission, missing, "crashed", worker.isolation)
    if target.fault is not None:  # the machine's failure is never scored as the learner's lost check
        reason = (
            f"This notebook was not graded: {target.fault}. That is the grading machine's fault, not your "
            "notebook's: grade it again."
        )
        return failed_report(lesson, submission, reason, "crashed", worker.isolation)
    report = score(lesson, submission, execution, tuple(outcomes))
    if copied is not None:  # each answer says which set it matches, not "I can't tell which slip"
        report = replace(report, questions=tuple(copied.mark(q) for q in report.questions))
    return replace(report, errors=(*notes, *report.errors), params=params)  # the flags first: read before the rest


_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^'.]+)'")
#: How the reason of a notebook not graded for a package the grading machine lacks begins (a batch counts them).
MISSING_PACKAGE = "Not graded: install "


def missing_on_machine(
    execution: Execution, outcomes: Sequence[TestOutcome] = (), provided: Mapping[str, str] = LEARNER_MODULES
) -> str | None:
    """Why the notebook is not graded when its code failed to import a module the course's learner install gives
    notebooks (``provided``: module -> distribution) and this grading machine lacks; None otherwise.

    Positive evidence only: a cell raised ``ModuleNotFoundError`` for that top-level module (or a hidden test's
    call of a learner function did, ``... raised ModuleNotFoundError: No module named 'numpy'``), and it cannot
    be found here either (a learner's own ``raise ModuleNotFoundError`` for a module this machine has, or a typo
    such as ``numpy.linalgg``, stays their error). The row is ``crashed``: blank in an LMS import, and graded
    again by the next run, once the package is installed."""
    said = [f"{e.ename}: {e.evalue}" for e in execution.cell_errors] + [o.message for o in outcomes]
    for text in said:
        for module in _NO_MODULE.findall(text):
            if module not in provided or importlib.util.find_spec(module) is not None:
                continue
            package = provided[module]
            return (
                f"{MISSING_PACKAGE}{package} on the grading machine (python3 -m pip install {package}), then grade "
                f"again: the notebook imports {module}, which the course's learner install gives notebooks. That is "
                "the grading machine's missing package, not an error of this notebook."
            )
    return None


def lent_solution(lesson: Lesson) -> Submission | None:
    """The solution notebook whose functions the hidden tests lend (run by a lender's worker), or None if the lesson
    lends none (no function question comes after another)."""
    if not any(lesson.stand_ins.values()):
        return None
    from grader.suites.reference import solution_submission

    return solution_submission(require_solution(lesson))


def failed_report(
    lesson: Lesson, submission: Submission, reason: str, status: ReportStatus, isolation: str = ""
) -> Report:
    """The report of a notebook that could not run to the end: every question scores 0 with ``reason``."""
    return replace(score(lesson, submission, Execution(failure=reason, isolation=isolation), ()), status=status)
