"""Gradescope: grade the one notebook in ``<root>/submission`` and write ``<root>/results/results.json``.

The file follows Gradescope's autograder specification (``docs/specs.md`` of gradescope/autograder_samples): a
top-level ``score``, ``execution_time`` (seconds) and ``output``, and one test per lesson question (``name`` = id
and title, ``number`` "1", "2", ..., ``score``, ``max_score``, ``status``, ``output`` = the teaching feedback,
``visibility``). Every ``output`` is Markdown (``output_format`` "md"): the feedback's `code` spans render,
and the learner's words in it are escaped (:func:`grader.text.for_markdown_spans`). The specification knows
only the statuses "passed" and "failed" (by default: full marks or not), so a question partly earned is
"failed" with its partial credit said in its name and its output's first line, never shown as plain failure.
Whatever happens (no notebook, several, an unreadable file, a timeout, a broken lesson, a bug), a valid
results.json is written with score 0 and the reason in ``output``: Gradescope shows only "The autograder
failed to execute correctly" when the file is missing or malformed. So every string in it is
:func:`grader.text.plain` (valid UTF-8, no control characters, bounded), and a write that fails leaves no
temporary file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.config import GRADESCOPE_VISIBILITY
from grader.files import write_atomic
from grader.lessons import load_lesson
from grader.model import Lesson, Params, QuestionResult, Report
from grader.text import for_json, for_markdown_spans, plain

if TYPE_CHECKING:
    from grader.pipeline import GradeOptions

NOTEBOOK_SUFFIX = ".ipynb"
_IGNORED_PARTS = {".ipynb_checkpoints", "__MACOSX"}


class SubmissionProblem(Exception):
    """The submission folder does not hold exactly one notebook; ``str()`` tells the learner what to do."""


def find_notebook(submission: Path) -> Path:
    """The one notebook in ``submission`` (searched recursively, ignoring checkpoints and hidden files)."""
    candidates = submission.rglob(f"*{NOTEBOOK_SUFFIX}") if submission.is_dir() else iter(())
    found = sorted(
        p
        for p in candidates
        if p.is_file()
        and not any(part in _IGNORED_PARTS or part.startswith(".") for part in p.relative_to(submission).parts)
    )
    if not found:
        raise SubmissionProblem(
            f"No notebook ({NOTEBOOK_SUFFIX} file) was found in your submission. Upload your notebook and submit again."
        )
    if len(found) > 1:
        names = ", ".join(str(p.relative_to(submission)) for p in found)
        raise SubmissionProblem(
            f"Your submission has {len(found)} notebooks ({names}); submit exactly one {NOTEBOOK_SUFFIX} file."
        )
    return found[0]


def question_name(lesson: Lesson, question_id: str) -> str:
    title = lesson.question(question_id).title
    return f"{question_id}: {title}" if title else question_id


def results_from_report(
    report: Report, lesson: Lesson, seconds: float, visibility: str = GRADESCOPE_VISIBILITY
) -> dict[str, Any]:
    """Gradescope's results.json for a graded notebook: one test per question, in lesson order."""
    summary = f"{Path(report.path).name}: {report.score:g} / {report.max_score:g} points."
    output = _markdown((summary, *report.errors))
    return _results(report.score, seconds, output, _tests(report.questions, lesson, visibility), visibility)


def ungraded_results(
    reason: str, lesson: Lesson | None, seconds: float, visibility: str = GRADESCOPE_VISIBILITY
) -> dict[str, Any]:
    """Score 0 with ``reason``; every question of ``lesson`` (when known) listed as failed, so totals match."""
    reason = plain(reason)
    zeros = [QuestionResult(q.id, 0.0, q.points, "error", (reason,)) for q in lesson.questions] if lesson else []
    return _results(0.0, seconds, _markdown((reason,)), _tests(zeros, lesson, visibility) if lesson else [], visibility)


#: Gradescope's format for every output we write: Markdown (its others: text, html, simple_format, ansi).
OUTPUT_FORMAT = "md"


def partial(q: QuestionResult) -> bool:
    """Some of the question's points were earned, not all."""
    return 0 < q.score < q.max_score


def _tests(questions: Iterable[QuestionResult], lesson: Lesson, visibility: str) -> list[dict[str, Any]]:
    return [
        {
            "name": _test_name(lesson, q),
            "number": str(number),
            "score": q.score,
            "max_score": q.max_score,
            "status": "passed" if q.status == "passed" else "failed",
            "output": question_output(q),
            "output_format": OUTPUT_FORMAT,
            "visibility": visibility,
        }
        for number, q in enumerate(questions, start=1)
    ]


def _test_name(lesson: Lesson, q: QuestionResult) -> str:
    partly = f" (partial credit: {q.score:g} / {q.max_score:g})" if partial(q) else ""
    return question_name(lesson, q.id) + partly


def question_output(q: QuestionResult) -> str:
    """A question's feedback as Markdown paragraphs, opened by its partial credit when it has some."""
    earned = (f"**Partly earned: {q.score:g} of {q.max_score:g} points.**",) if partial(q) else ()
    return _markdown((*earned, *q.feedback))


def _markdown(lines: Iterable[str]) -> str:
    """Lines of feedback as Markdown paragraphs (one line break would join them into one)."""
    return "\n\n".join(for_markdown_spans(line) for line in lines if line.strip())


def _results(score: float, seconds: float, output: str, tests: list[dict[str, Any]], visibility: str) -> dict[str, Any]:
    return {
        "score": score,
        "execution_time": round(seconds, 2),
        "output": output,
        "output_format": OUTPUT_FORMAT,
        "visibility": visibility,
        "tests": tests,
    }


def grade_for_gradescope(root: Path, options: GradeOptions, visibility: str = GRADESCOPE_VISIBILITY) -> dict[str, Any]:
    """Grade ``root/submission`` and return the results.json object; never raises for what it finds there.

    ``options.lesson`` (``--lesson``) names the lesson when the notebook does not, and lets every question be
    listed (at 0) even when no notebook could be graded.
    """
    from grader.errors import GraderError
    from grader.execute.upkeep import grading_others
    from grader.grader import grade_notebook

    start = time.monotonic()
    lesson = _known_lesson(options)
    try:
        grading_others(options.mode, "grade gradescope")  # no sandbox: not graded, unless told to go without
        path = find_notebook(root / "submission")
        report = grade_notebook(path, options, gradescope_params(root, path, options))
        lesson = load_lesson(report.lesson, options.lessons_root, options.suites)
        return results_from_report(report, lesson, time.monotonic() - start, visibility)
    except (SubmissionProblem, GraderError) as err:
        return ungraded_results(str(err), lesson, time.monotonic() - start, visibility)
    except Exception as err:  # a bug of ours must still leave the learner a readable result
        reason = f"The autograder itself failed ({type(err).__name__}: {err}); please tell your instructor."
        return ungraded_results(reason, lesson, time.monotonic() - start, visibility)


#: Gradescope's description of the submission, beside ``submission/`` (its ``users``: email, id, name).
SUBMISSION_METADATA = "submission_metadata.json"


def gradescope_identity(root: Path) -> str | None:
    """Who submitted, to Gradescope: the first user's email, in lower case (a group shares its first member's
    numbers); None when ``submission_metadata.json`` is missing or names nobody."""
    try:
        data = json.loads((root / SUBMISSION_METADATA).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    users = data.get("users") if isinstance(data, dict) else None
    first = users[0] if isinstance(users, list) and users and isinstance(users[0], dict) else {}
    email = first.get("email")
    return email.strip().lower() if isinstance(email, str) and email.strip() else None


def gradescope_params(root: Path, path: Path, options: GradeOptions) -> Params | None:
    """The learner parameters of whoever submitted (grader/params.py): drawn from their Gradescope email when the
    lesson has parameters; None (the numbers the notebook states) when Gradescope named nobody."""
    from grader.params import identity_of, learner_params, needs_secret
    from grader.pipeline import read_for_lesson

    submission, lesson_id = read_for_lesson(path, options)
    lesson = load_lesson(lesson_id, options.lessons_root, options.suites)
    identity = gradescope_identity(root)
    if not lesson.params or identity is None:
        return None
    secret = needs_secret(lesson, [submission], lesson.root.parent)
    return learner_params(lesson, identity_of(identity), secret)


def _known_lesson(options: GradeOptions) -> Lesson | None:
    if not options.lesson:
        return None
    from grader.errors import GraderError

    try:
        return load_lesson(options.lesson, options.lessons_root, options.suites)
    except GraderError:
        return None


def write_results(results: dict[str, Any], root: Path) -> Path:
    """Write ``root/results/results.json`` atomically (a half-written file is a failed autograder run)."""
    folder = root / "results"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    # Each piece of learner text was bounded when its line was made (a question's output joins several).
    write_atomic(path, json.dumps(for_json(results, limit=None), indent=2, ensure_ascii=False) + "\n")
    return path
