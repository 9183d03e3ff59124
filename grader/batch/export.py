"""Hand a batch's reports to another gradebook: nbgrader's, for ``grade batch --nbgrader-db URL``.

The writer lives in :mod:`grader.integrations.nbgrader` (``export_to_gradebook(url, lesson, rows)``, with
``rows`` a list of ``(learner_id, Report)``, plus ``assignment=`` when the batch graded one nbgrader
assignment); it is imported only when asked for, and nbgrader's presence is checked before any grading
starts, so a batch never grades 300 notebooks and then fails to export them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from grader.batch.model import Row
from grader.config import DEFAULT_UNGRADABLE, Ungradable
from grader.errors import GraderError, UsageError
from grader.model import Lesson

Exporter = Callable[..., None]


def nbgrader_exporter() -> Exporter:
    """The nbgrader writer, or a :class:`UsageError` saying why ``--nbgrader-db`` cannot be used."""
    from grader.integrations.nbgrader import export_to_gradebook, require_nbgrader

    try:
        require_nbgrader()  # is nbgrader itself installed?
    except ModuleNotFoundError as err:
        raise UsageError(f"--nbgrader-db needs {err.name}: python3 -m pip install nbgrader") from None
    return export_to_gradebook


def export_rows(
    exporter: Exporter,
    url: str,
    rows: Sequence[Row],
    lesson: Lesson,
    assignment: str | None = None,
    ungradable: Ungradable = DEFAULT_UNGRADABLE,
) -> None:
    """Call the exporter with the ``(learner_id, Report)`` pairs of ``lesson``, the one lesson the batch graded.

    A report of another lesson (none should be left: the batch regrades them) is never exported, so no
    submission's scores reach an assignment they were not graded for. A notebook that could not be graded is
    left out (no grade, as in the LMS imports: :func:`grader.batch.lms.score_cell`), unless ``ungradable`` is
    ``zero``, when its zeros are written; a crashed grading never is. nbgrader's gradebook holds the raw
    scores: nbgrader applies its own late penalty (its ``LateSubmissionPlugin``) from its own timestamps.
    """
    wanted = ("graded", "unreadable", "timed-out") if ungradable == "zero" else ("graded",)
    pairs = [
        (row.learner, row.report)
        for row in rows
        if row.report is not None and row.report.lesson == lesson.id and row.status in wanted
    ]
    if not pairs:
        return
    try:
        exporter(url, lesson, pairs, **({"assignment": assignment} if assignment else {}))
    except GraderError:
        raise
    except Exception as err:
        raise GraderError(
            f"Writing grades to the nbgrader gradebook {url} failed ({type(err).__name__}: {err})."
        ) from None
