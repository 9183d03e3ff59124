"""Hand a batch's reports to another gradebook: nbgrader's, for ``grade batch --nbgrader-db URL``.

The writer lives in :mod:`grader.integrations.nbgrader` (``export_to_gradebook(url, lesson, rows)``, with
``rows`` a list of ``(learner_id, Report)``, plus ``assignment=`` when the batch graded one nbgrader
assignment); it is imported only when asked for, and checked before any grading starts, so a batch never
grades 300 notebooks and then fails to export them.
"""

from __future__ import annotations

import importlib
from typing import Callable, Sequence

from grader.batch.rows import Row
from grader.errors import GraderError, UsageError
from grader.model import Lesson

_MODULE = "grader.integrations.nbgrader"

Exporter = Callable[..., None]


def nbgrader_exporter() -> Exporter:
    """The nbgrader writer, or a :class:`UsageError` saying why ``--nbgrader-db`` cannot be used."""
    try:
        module = importlib.import_module(_MODULE)
        getattr(module, "require_nbgrader", lambda: None)()  # is nbgrader itself installed?
    except ModuleNotFoundError as err:
        if err.name and _MODULE.startswith(err.name):
            raise UsageError(f"--nbgrader-db needs {_MODULE}, which this version of the grader does not have yet.") from None
        raise UsageError(f"--nbgrader-db needs {err.name}: python3 -m pip install nbgrader") from None
    exporter = getattr(module, "export_to_gradebook", None)
    if exporter is None:
        raise UsageError(f"{_MODULE} has no export_to_gradebook(url, lesson, rows) yet; --nbgrader-db cannot be used.")
    return exporter  # type: ignore[no-any-return]


def export_rows(exporter: Exporter, url: str, rows: Sequence[Row], lesson: Lesson, assignment: str | None = None) -> None:
    """Call the exporter with the ``(learner_id, Report)`` pairs of ``lesson``, the one lesson the batch graded.

    A report of another lesson (none should be left: the batch regrades them) is never exported, so no
    submission's scores reach an assignment they were not graded for.
    """
    pairs = [(row.learner, row.report) for row in rows if row.report is not None and row.report.lesson == lesson.id]
    if not pairs:
        return
    try:
        exporter(url, lesson, pairs, **({"assignment": assignment} if assignment else {}))
    except GraderError:
        raise
    except Exception as err:
        raise GraderError(f"Writing grades to the nbgrader gradebook {url} failed ({type(err).__name__}: {err}).") from None
