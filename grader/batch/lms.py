"""Grades a course's LMS imports as they are: each LMS's documented grade-import CSV layout.

Each file is keyed on the learner's LMS identity (:class:`grader.batch.names.Identity`, read from the LMS
download's file names), never on the display name, and holds one score per learner, the batch's total:

- ``canvas``: Canvas's gradebook import (Grades > Import): ``Student, ID, SIS User ID, SIS Login ID,
  Section``, then one column per assignment, ``Name (assignment id)``; Canvas matches learners on ``ID``
  (the Canvas user id in the download's file names). A column without an id creates a new assignment; its
  points come from the ``Points Possible`` row, which Canvas's own export has under the header.
- ``moodle``: the Moodle assignment's offline grading worksheet (Assignment > Upload grading worksheet):
  ``Identifier, Full name, Grade, Maximum Grade``, where ``Identifier`` is ``Participant <id>``, the
  participant id Moodle writes into the download's file names. (Moodle's gradebook CSV import matches
  on a user field, email, username or id number, which a download does not carry.)
- ``blackboard``: Blackboard Learn's Grade Center upload (Work Offline > Upload): ``Last Name, First
  Name, Username``, then ``Name [Total Pts: N Score] |column id``; Blackboard matches on ``Username``
  and ignores name changes; a column without ``|id`` is created.
- ``csv``: the batch's own ``grades.csv`` layout, for any other gradebook.

A learner whose grading ``crashed`` (perhaps the machine's fault) gets an empty cell, which every one of
these LMSs reads as "no change": regrade them first. The README's batch section cites each layout's source.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from grader.batch.names import Identity
from grader.batch.rows import Row
from grader.errors import UsageError
from grader.files import write_atomic
from grader.model import Lesson
from grader.text import for_csv, num

#: What ``--export`` / ``grade export --to`` accept, and the LMS whose download names each one's learners.
EXPORT_LMS = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard", "csv": ""}


@dataclass(frozen=True)
class Column:
    """The one assignment column an import file fills: its header name and its points."""

    name: str
    max_score: float

    @classmethod
    def of(cls, lesson: Lesson, name: str | None = None) -> Column:
        return cls(name or lesson.title, lesson.max_score)


@dataclass(frozen=True)
class Export:
    path: Path
    note: str
    """What was written, for the end-of-batch summary."""


def check_export(to: str | None, identities: Iterable[Identity] = ()) -> None:
    """Refuse, before anything is graded, an unknown layout or learners the LMS could not match (no LMS id)."""
    if to is None:
        return
    if to not in EXPORT_LMS:
        raise UsageError(f"--export {to!r} is not a layout; use one of {', '.join(EXPORT_LMS)}.")
    lms = EXPORT_LMS[to]
    strangers = [who for who in identities if lms and who.lms != lms]
    if strangers:
        raise UsageError(
            f"{lms} matches learners on the {lms} id its download writes into each file name, and {len(strangers)} "
            f"submission(s) were not named by a {lms} download: grade the {lms} download itself, or use --export csv."
        )


def export_text(rows: Sequence[Row], column: Column, to: str) -> str:
    """The import file's text."""
    check_export(to, [r.identity for r in rows])
    buffer = io.StringIO()
    _WRITERS[to](csv.writer(buffer, lineterminator="\n"), rows, column)
    return buffer.getvalue()


def import_path(out: Path, to: str) -> Path:
    """Where a batch writes the ``to`` import file: ``RESULTS/<to>-import.csv``."""
    return out / f"{to}-import.csv"


def write_export(out: Path, rows: Sequence[Row], column: Column, to: str, path: Path | None = None) -> Export:
    """Write the ``to`` import file (default ``RESULTS/<to>-import.csv``) and say what was written."""
    path = path or import_path(out, to)
    write_atomic(path, export_text(rows, column, to))
    blank = sum(r.status == "crashed" for r in rows)
    left = f"; {blank} left empty (their grading crashed: regrade them first)" if blank and to != "csv" else ""
    return Export(path, f"{to} import file: {path} ({len(rows)} learners{left})")


def score_cell(row: Row) -> str:
    """The total as people write it (two decimals at most); empty for a crashed grading, which is no grade."""
    return "" if row.status == "crashed" else num(row.score)


def row_reason(row: Row) -> str:
    """Why the learner has fewer points than their answers might earn: the row's reason, or, when they lost
    points, the errors that can explain it: cells that raised (``ModuleNotFoundError: torch``) and questions
    that could not be checked (a call that never returned)."""
    if row.reason or row.report is None:
        return row.reason
    if row.report.score >= row.report.max_score:
        return ""
    unchecked = [f"{q.id}: {q.feedback[0]}" for q in row.report.questions if q.status == "error" and q.feedback]
    return "; ".join([*row.report.errors, *unchecked])


class _CsvWriter(Protocol):
    def writerow(self, row: Iterable[str], /) -> object: ...


Writer = Callable[[_CsvWriter, Sequence[Row], Column], None]


def _canvas(writer: _CsvWriter, rows: Sequence[Row], column: Column) -> None:
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", for_csv(column.name)])
    writer.writerow(["Points Possible", "", "", "", "", num(column.max_score)])
    for row in rows:
        writer.writerow([for_csv(row.identity.name), for_csv(row.identity.lms_id), "", "", "", score_cell(row)])


def _moodle(writer: _CsvWriter, rows: Sequence[Row], column: Column) -> None:
    writer.writerow(["Identifier", "Full name", "Grade", "Maximum Grade"])
    for row in rows:
        who = row.identity
        writer.writerow(
            [f"Participant {for_csv(who.lms_id)}", for_csv(who.name), score_cell(row), num(column.max_score)]
        )


def _blackboard(writer: _CsvWriter, rows: Sequence[Row], column: Column) -> None:
    header = column.name if "|" in column.name else f"{column.name} [Total Pts: {num(column.max_score)} Score]"
    writer.writerow(["Last Name", "First Name", "Username", for_csv(header)])
    for row in rows:
        writer.writerow(["", "", for_csv(row.identity.lms_id), score_cell(row)])


def grades_csv(rows: Sequence[Row]) -> str:
    """``grades.csv``: learner, name, lms, lms_id, score, max_score, late, status, reason, then a column per
    question."""
    buffer = io.StringIO()
    _grades(csv.writer(buffer, lineterminator="\n"), rows)
    return buffer.getvalue()


def _grades(writer: _CsvWriter, rows: Sequence[Row], column: Column | None = None) -> None:
    questions: list[str] = []
    for row in rows:
        for q in row.report.questions if row.report else ():
            if q.id not in questions:
                questions.append(q.id)
    writer.writerow(
        ["learner", "name", "lms", "lms_id", "score", "max_score", "late", "status", "reason", *map(for_csv, questions)]
    )
    for row in rows:
        scores = {q.id: num(q.score) for q in row.report.questions} if row.report else {}
        who = row.identity
        cells = [
            for_csv(row.learner),
            for_csv(who.name),
            who.lms,
            for_csv(who.lms_id),
            num(row.score),
            num(row.max_score),
        ]
        cells += ["yes" if row.late else "no", row.status, for_csv(row_reason(row))]
        writer.writerow([*cells, *(scores.get(q, "") for q in questions)])


_WRITERS: dict[str, Writer] = {"canvas": _canvas, "moodle": _moodle, "blackboard": _blackboard, "csv": _grades}


def export_results(
    results: Path, to: str, name: str | None = None, path: Path | None = None, lessons_root: Path | None = None
) -> Export:
    """``grade export``: the import file of an existing results folder, from its gradebook (nothing is regraded).

    The column is named after the lesson's title when the lesson can be found (``lessons_root``), else its id.
    """
    from grader.batch.gradebook import FILE_NAME, Gradebook
    from grader.errors import GraderError
    from grader.lessons import load_lesson

    if not (results / FILE_NAME).is_file():
        raise UsageError(f"{results} has no {FILE_NAME}: give the folder `grade batch --out` wrote.")
    with Gradebook(results / FILE_NAME) as book:
        rows = book.latest(book.roster())
    lesson_ids = sorted({r.lesson for r in rows if r.lesson})
    if len(lesson_ids) != 1:
        raise UsageError(
            f"{results} holds grades of {len(lesson_ids)} lessons ({', '.join(lesson_ids)}); "
            "export one results folder per lesson."
        )
    try:
        column = Column.of(load_lesson(lesson_ids[0], lessons_root), name)
    except GraderError:
        column = Column(name or lesson_ids[0], max(r.max_score or 0.0 for r in rows))
    return write_export(results, rows, column, to, path)
