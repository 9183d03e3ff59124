"""Grades a course's LMS imports as they are: each LMS's documented grade-import CSV layout.

Each file is keyed on the learner's LMS identity (:class:`grader.batch.names.Identity`, read from the LMS
download's file names), never on the display name, and holds one score per learner, the batch's total after
any late penalty (:mod:`grader.batch.late`). The README's "Grades your LMS imports" cites each rule's source.

- ``canvas``: Canvas's gradebook import (Grades > Import): ``Student, ID, SIS User ID, SIS Login ID,
  Section``, then the assignment column, ``Name (assignment id)``, and the ``Points Possible`` row Canvas's own
  export has under the header; Canvas matches learners on ``ID`` (the Canvas user id in the download's names).
  A column without ``(id)`` creates a new assignment. UTF-8, no BOM, quoted only where a cell needs it.
- ``moodle``: the assignment's offline grading worksheet (Upload grading worksheet). Moodle's importer
  (``mod/assign/feedback/offline/importgradeslib.php``, ``init()``) refuses a file without all three of
  ``Identifier``, ``Grade`` and ``Last modified (grade)`` (the site language's words: :class:`MoodleWords`),
  strips ``Participant `` from each identifier to find the participant id the download's names carry, and
  (``locallib.php``, ``process_import_grades``) skips a learner whose Moodle grade was changed more than a
  minute after ``Last modified (grade)``, so we write the export's time there: a blank one would skip every
  learner already graded. No column may be named like a feedback plugin's field (``Feedback comments``): it
  would be imported as feedback.
- ``blackboard``: Blackboard Learn's Grade Center upload (Work Offline > Upload): ``Last Name, First Name,
  Username``, then ``Name [Total Pts: N Score] |column id``; every value quoted, as Blackboard requires of a
  comma file. Blackboard matches on ``Username``; a column without ``|id`` is created as a text column worth
  0 points, outside the totals, which the export's note says.
- ``csv``: the batch's own ``grades.csv`` layout, for any other gradebook.

What each row gets: a graded learner their (late-penalised) total; a learner whose notebook could not be
graded (``unreadable``, ``timed-out``: status not ``graded``) a blank cell, which every one of these LMSs reads
as "no change", unless ``ungradable="zero"``; a ``crashed`` one (perhaps the machine's fault) always a blank.
A learner the LMS cannot match (no identity from that LMS's download, an id that could not be written
exactly, or an id two submissions share) is left out of the file and named in the export's note; only a
file with nobody the LMS could match is refused.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

from grader.batch.names import Identity
from grader.batch.rows import Row
from grader.config import DEFAULT_UNGRADABLE, Ungradable
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
class MoodleWords:
    """The header words of Moodle's grading worksheet, which its importer finds its columns by, in the Moodle
    site's language (``get_string``): English by default. For a site in another language, copy them from one
    worksheet that site downloads (``grade export --moodle-words``)."""

    identifier: str = "Identifier"
    """``get_string('recordid', 'assign')``."""
    participant: str = "Participant "
    """``get_string('hiddenuser', 'assign')``: stripped from each identifier, trailing space included."""
    full_name: str = "Full name"
    grade: str = "Grade"
    """``get_string('grade')``."""
    maximum: str = "Maximum Grade"
    modified: str = "Last modified (grade)"
    """``get_string('lastmodifiedgrade', 'assign')``."""

    @classmethod
    def parse(cls, text: str) -> MoodleWords:
        """``Identifier|Participant |Grade|Last modified (grade)``: the four words the importer reads."""
        parts = text.split("|")
        if len(parts) != 4 or not all(p.strip() for p in parts):
            raise UsageError(
                "--moodle-words takes four words separated by |: identifier, participant prefix, grade, "
                "last modified (grade), e.g. 'Identifier|Participant |Grade|Last modified (grade)'."
            )
        identifier, participant, grade, modified = parts
        return cls(identifier.strip(), participant.lstrip(), grade=grade.strip(), modified=modified.strip())


@dataclass(frozen=True)
class Export:
    path: Path
    note: str
    """What was written, for the end-of-batch summary: who was left blank or left out, and why."""


@dataclass(frozen=True)
class Importable:
    """The rows an LMS import file holds, and the learners left out of it with why."""

    rows: tuple[Row, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    """``(learner, why)``."""


def check_export(to: str | None, identities: Iterable[Identity] = ()) -> None:
    """Refuse, before anything is graded, an unknown layout, or a class the LMS could match nobody of (no learner
    named by that LMS's download). Learners it cannot match among others are left out when the file is written."""
    if to is None:
        return
    if to not in EXPORT_LMS:
        raise UsageError(f"--export {to!r} is not a layout; use one of {', '.join(EXPORT_LMS)}.")
    lms = EXPORT_LMS[to]
    given = list(identities)
    if lms and given and not any(who.lms == lms for who in given):
        raise UsageError(
            f"{lms} matches learners on the {lms} id its download writes into each file name, and none of the "
            f"{len(given)} submission(s) was named by a {lms} download: grade the {lms} download itself, or use "
            "--export csv."
        )


def importable(rows: Sequence[Row], to: str) -> Importable:
    """The rows ``to``'s LMS can match, one per identity: a row not named by that LMS's download, whose id could
    not be written exactly (it would start a spreadsheet formula, or has control characters), or whose id another
    row shares (two submissions, one learner: which grade is theirs is not ours to guess) is left out."""
    lms = EXPORT_LMS[to]
    if not lms:
        return Importable(tuple(rows))
    left: list[tuple[str, str]] = []
    named: list[Row] = []
    for row in rows:
        key = row.identity.lms_id
        if row.identity.lms != lms or not key:
            left.append((row.learner, f"its file was not named by a {lms} download"))
        elif for_csv(key) != key or key != key.strip():
            left.append((row.learner, f"its {lms} id {for_csv(key)!r} cannot be written as {lms} reads it"))
        else:
            named.append(row)
    owners: dict[str, list[str]] = {}
    for row in named:
        owners.setdefault(row.identity.lms_id, []).append(row.learner)
    shared = {key: who for key, who in owners.items() if len(who) > 1}
    for key, who in shared.items():
        left += [(name, f"{lms} id {key} is also {', '.join(w for w in who if w != name)}'s") for name in who]
    kept = tuple(r for r in named if r.identity.lms_id not in shared)
    if rows and not kept:
        raise UsageError(
            f"{lms} could match none of the {len(rows)} learner(s) ({left[0][0]}: {left[0][1]}); grade the "
            f"{lms} download itself, or use --export csv."
        )
    return Importable(kept, tuple(left))


def export_text(
    rows: Sequence[Row],
    column: Column,
    to: str,
    ungradable: Ungradable = DEFAULT_UNGRADABLE,
    now: datetime | None = None,
    words: MoodleWords = MoodleWords(),
) -> str:
    """The import file's text: the rows ``to``'s LMS can match (:func:`importable`)."""
    check_export(to)
    kept = importable(rows, to).rows
    buffer = io.StringIO()
    if to == "csv":
        _grades(csv.writer(buffer, lineterminator="\n"), kept, ungradable)
    elif to == "canvas":
        _canvas(csv.writer(buffer, lineterminator="\n"), kept, column, ungradable)
    elif to == "moodle":
        stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")
        _moodle(csv.writer(buffer, lineterminator="\n"), kept, column, ungradable, stamp, words)
    else:
        _blackboard(csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL), kept, column, ungradable)
    return buffer.getvalue()


def import_path(out: Path, to: str) -> Path:
    """Where a batch writes the ``to`` import file: ``RESULTS/<to>-import.csv``."""
    return out / f"{to}-import.csv"


def write_export(
    out: Path,
    rows: Sequence[Row],
    column: Column,
    to: str,
    path: Path | None = None,
    ungradable: Ungradable = DEFAULT_UNGRADABLE,
    now: datetime | None = None,
    words: MoodleWords = MoodleWords(),
) -> Export:
    """Write the ``to`` import file (default ``RESULTS/<to>-import.csv``) and say what was written, who was left
    blank and who was left out, by name and why."""
    path = path or import_path(out, to)
    chosen = importable(rows, to)
    write_atomic(path, export_text(chosen.rows, column, to, ungradable, now, words))
    parts = [f"{to} import file: {path} ({len(chosen.rows)} learners"]
    blank = [r for r in chosen.rows if score_cell(r, ungradable) == ""]
    if blank and to != "csv":
        parts.append(
            f"; {len(blank)} left blank, no grade rather than a 0 (regrade or ask them to resubmit): "
            + ", ".join(f"{r.learner} ({r.status}: {for_csv(row_reason(r))[:80]})" for r in blank)
        )
    if chosen.left_out:
        parts.append(
            f"; {len(chosen.left_out)} left out, as {EXPORT_LMS[to]} could not match them: "
            + ", ".join(f"{who} ({why})" for who, why in chosen.left_out)
        )
    if to == "blackboard" and "|" not in column.name:
        parts.append(
            "; the column has no |<column id>, so Blackboard will create it as a text column worth 0 points, "
            "outside the totals: create the column in Grade Center, download it once and give its header with "
            "--export-name"
        )
    return Export(path, "".join(parts) + ")")


def score_cell(row: Row, ungradable: Ungradable = DEFAULT_UNGRADABLE) -> str:
    """The total as people write it (two decimals at most), after any late penalty; blank for a row that was not
    graded (``0`` with ``ungradable="zero"``) and always for a crashed grading, which may be the machine's fault."""
    if row.status == "crashed":
        return ""
    if row.status != "graded" or row.report is None:
        return "0" if ungradable == "zero" else ""
    return num(row.final_score)


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


def _canvas(writer: _CsvWriter, rows: Sequence[Row], column: Column, ungradable: Ungradable) -> None:
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", for_csv(column.name)])
    writer.writerow(["Points Possible", "", "", "", "", num(column.max_score)])
    for row in rows:
        who = row.identity
        writer.writerow([for_csv(who.name), who.lms_id, "", "", "", score_cell(row, ungradable)])


def _moodle(
    writer: _CsvWriter, rows: Sequence[Row], column: Column, ungradable: Ungradable, stamp: str, words: MoodleWords
) -> None:
    writer.writerow([words.identifier, words.full_name, words.grade, words.maximum, words.modified])
    for row in rows:
        who = row.identity
        cells = [f"{words.participant}{who.lms_id}", for_csv(who.name), score_cell(row, ungradable)]
        writer.writerow([*cells, num(column.max_score), stamp])


def _blackboard(writer: _CsvWriter, rows: Sequence[Row], column: Column, ungradable: Ungradable) -> None:
    header = column.name if "|" in column.name else f"{column.name} [Total Pts: {num(column.max_score)} Score]"
    writer.writerow(["Last Name", "First Name", "Username", for_csv(header)])
    for row in rows:
        writer.writerow(["", "", row.identity.lms_id, score_cell(row, ungradable)])


def grades_csv(rows: Sequence[Row], ungradable: Ungradable = DEFAULT_UNGRADABLE) -> str:
    """``grades.csv``: learner, name, lms, lms_id, score, max_score, late, status, reason, then raw_score,
    late_days, late_penalty, due, submitted, then a column per question. ``score`` is what an LMS import holds
    (after any late penalty; blank for a row not graded unless ``ungradable="zero"``), ``raw_score`` the
    notebook's own total."""
    buffer = io.StringIO()
    _grades(csv.writer(buffer, lineterminator="\n"), rows, ungradable)
    return buffer.getvalue()


def _grades(writer: _CsvWriter, rows: Sequence[Row], ungradable: Ungradable) -> None:
    questions: list[str] = []
    for row in rows:
        for q in row.report.questions if row.report else ():
            if q.id not in questions:
                questions.append(q.id)
    head = ["learner", "name", "lms", "lms_id", "score", "max_score", "late", "status", "reason"]
    head += ["raw_score", "late_days", "late_penalty", "due", "submitted"]
    writer.writerow([*head, *map(for_csv, questions)])
    for row in rows:
        scores = {q.id: num(q.score) for q in row.report.questions} if row.report else {}
        who, late = row.identity, row.lateness
        cells = [for_csv(row.learner), for_csv(who.name), who.lms, for_csv(who.lms_id)]
        cells += [score_cell(row, ungradable), num(row.max_score)]
        cells += ["yes" if row.late else "no", row.status, for_csv(row_reason(row))]
        cells += [num(row.score) if row.report else ""]
        cells += [str(late.days), num(late.points_off), late.due] if late else ["", "", ""]
        cells += [row.submitted]
        writer.writerow([*cells, *(scores.get(q, "") for q in questions)])


def export_results(
    results: Path,
    to: str,
    name: str | None = None,
    path: Path | None = None,
    lessons_root: Path | None = None,
    ungradable: Ungradable | None = None,
    words: MoodleWords = MoodleWords(),
) -> Export:
    """``grade export``: the import file of an existing results folder, from its gradebook (nothing is regraded),
    with the late policy its batch was given (``RESULTS/late-policy.json``) and, unless ``ungradable`` says
    otherwise, what it chose for rows that could not be graded.

    The column is named after the lesson's title when the lesson can be found (``lessons_root``), else its id.
    """
    from grader.batch.results import read_results
    from grader.errors import GraderError
    from grader.lessons import load_lesson

    found = read_results(results)
    try:
        column = Column.of(load_lesson(found.lesson_id, lessons_root), name)
    except GraderError:
        column = Column(name or found.lesson_id, max(r.max_score or 0.0 for r in found.rows))
    return write_export(results, found.rows, column, to, path, ungradable or found.ungradable, words=words)
