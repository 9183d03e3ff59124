"""A results folder read back: one lesson's rows as its batch left them, checked and with its late policy.

``grade export`` and the chapter view (``grade chapter``, ``grade class``) both start from a folder that
``grade batch --out`` wrote; reading it is done here once, so both see the same rows: every stored grading
checked as it is read (:meth:`Gradebook.latest_checked`: a row that does not read back is a note), the late
policy the batch was given applied (``late-policy.json``), and what the batch chose for ungradable rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.batch.gradebook import FILE_NAME, Gradebook
from grader.batch.late import apply_late, remember
from grader.batch.model import Row
from grader.config import Ungradable
from grader.errors import UsageError


@dataclass(frozen=True)
class Results:
    lesson_id: str
    rows: tuple[Row, ...]
    """Every learner of the latest class list, their latest grading, late policy applied."""
    notes: tuple[str, ...]
    """Stored gradings left out because they did not read back."""
    ungradable: Ungradable
    """What the batch chose for rows that could not be graded (``blank`` or ``zero``)."""


def read_results(results: Path) -> Results:
    """Read the results folder ``results``; :class:`UsageError` when it is not one, or holds several lessons."""
    if not (results / FILE_NAME).is_file():
        raise UsageError(f"{results} has no {FILE_NAME}: give a folder `grade batch --out` wrote.")
    with Gradebook(results / FILE_NAME) as book:
        rows, notes = book.latest_checked(book.roster())
        ungradable = book.ungradable()
    lesson_ids = sorted({r.lesson for r in rows if r.lesson})
    if len(lesson_ids) != 1:
        raise UsageError(
            f"{results} holds grades of {len(lesson_ids)} lessons ({', '.join(lesson_ids) or 'none'}); "
            "give one results folder per lesson."
        )
    late = apply_late(rows, remember(results, None))
    return Results(lesson_ids[0], tuple(late), notes, ungradable)
