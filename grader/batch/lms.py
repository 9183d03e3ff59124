"""Grades a course's LMS imports as they are: each LMS's documented grade-import CSV layout.

Each file is keyed on the learner's LMS identity (:class:`grader.batch.model.Identity`, read from the LMS
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

Each layout is one row of :data:`grader.batch.lms_table.FORMATS` (its LMS, its writer, whether it takes a
chapter's column per lesson, what its note must say), an LMS's part of that LMS's row of the one table of LMSes
(:data:`grader.batch.lms_table.LMSES`); the commands' choices and the chapter export are derived from it.

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from grader.batch.lms_table import FORMATS
from grader.batch.model import row_reason
from grader.batch.sheet import Column, MoodleWords, Sheet, score_cell
from grader.config import DEFAULT_UNGRADABLE, Ungradable
from grader.errors import UsageError
from grader.files import write_atomic
from grader.text import for_csv

if TYPE_CHECKING:  # only their attributes are read
    from grader.batch.model import Identity, Row


@dataclass(frozen=True)
class Export:
    path: Path
    note: str
    """What was written, for the end-of-batch summary: who was left blank or left out, and why."""


def sheet_text(sheet: Sheet, to: str) -> str:
    """The ``to`` import file's text of a sheet."""
    form = FORMATS[to]
    buffer = io.StringIO()
    if form.quote_all:
        csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(form.write(sheet))
    else:
        csv.writer(buffer, lineterminator="\n").writerows(form.write(sheet))
    return buffer.getvalue()


class _Matched(Protocol):
    @property
    def identity(self) -> Identity: ...


_M = TypeVar("_M", bound=_Matched)


@dataclass(frozen=True)
class Importable(Generic[_M]):
    """The rows an LMS import file holds, and the learners left out of it with why."""

    rows: tuple[_M, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    """``(learner, why)``."""


def check_export(to: str | None, identities: Iterable[Identity] = ()) -> None:
    """Refuse, before anything is graded, an unknown layout, or a class the LMS could match nobody of (no learner
    named by that LMS's download). Learners it cannot match among others are left out when the file is written."""
    if to is None:
        return
    if to not in FORMATS:
        raise UsageError(f"--export {to!r} is not a layout; use one of {', '.join(FORMATS)}.")
    lms = FORMATS[to].lms
    given = list(identities)
    if lms and given and not any(who.lms == lms for who in given):
        raise UsageError(
            f"{lms} matches learners on the {lms} id its download writes into each file name, and none of the "
            f"{len(given)} submission(s) was named by a {lms} download: grade the {lms} download itself, or use "
            "--export csv."
        )


def _learner(row: Row) -> str:
    return row.learner


def importable(
    rows: Sequence[_M], to: str, name: Callable[[_M], str], otherwise: str = "use --export csv"
) -> Importable[_M]:
    """The rows ``to``'s LMS can match, one per identity: a row not named by that LMS's download, whose id could
    not be written exactly (it would start a spreadsheet formula, or has control characters), or whose id another
    row shares (two submissions, one learner: which grade is theirs is not ours to guess) is left out, by its
    ``name``. A file the LMS could match nobody in is refused, saying what to do (``otherwise``)."""
    lms = FORMATS[to].lms
    if not lms:
        return Importable(tuple(rows))
    left: list[tuple[str, str]] = []
    named: list[_M] = []
    for row in rows:
        key = row.identity.lms_id
        if row.identity.lms != lms or not key:
            left.append((name(row), f"its file was not named by a {lms} download"))
        elif for_csv(key) != key or key != key.strip():
            left.append((name(row), f"its {lms} id {for_csv(key)!r} cannot be written as {lms} reads it"))
        else:
            named.append(row)
    owners: dict[str, list[str]] = {}
    for row in named:
        owners.setdefault(row.identity.lms_id, []).append(name(row))
    shared = {key: who for key, who in owners.items() if len(who) > 1}
    for key, who in shared.items():
        left += [(n, f"{lms} id {key} is also {', '.join(w for w in who if w != n)}'s") for n in who]
    kept = tuple(r for r in named if r.identity.lms_id not in shared)
    if rows and not kept:
        raise UsageError(
            f"{lms} could match none of the {len(rows)} learner(s) ({left[0][0]}: {left[0][1]}); grade the "
            f"{lms} download itself, or {otherwise}."
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
    kept = importable(rows, to, _learner).rows
    return sheet_text(Sheet.of_rows(kept, column, ungradable, now, words), to)


def import_path(out: Path, to: str) -> Path:
    """Where a batch writes the ``to`` import file: ``RESULTS/<to>-import.csv``."""
    return out / FORMATS[to].file_name


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
    chosen = importable(rows, to, _learner)
    write_atomic(path, export_text(chosen.rows, column, to, ungradable, now, words))
    parts = [f"{to} import file: {path} ({len(chosen.rows)} learners"]
    blank = [r for r in chosen.rows if score_cell(r, ungradable) == ""]
    if blank and FORMATS[to].lms:
        parts.append(
            f"; {len(blank)} left blank, no grade rather than a 0 (regrade or ask them to resubmit): "
            + ", ".join(f"{r.learner} ({r.status}: {for_csv(row_reason(r))[:80]})" for r in blank)
        )
    if chosen.left_out:
        parts.append(
            f"; {len(chosen.left_out)} left out, as {FORMATS[to].lms} could not match them: "
            + ", ".join(f"{who} ({why})" for who, why in chosen.left_out)
        )
    parts.append(FORMATS[to].note((column,)))
    return Export(path, "".join(parts) + ")")


def grades_csv(rows: Sequence[Row], ungradable: Ungradable = DEFAULT_UNGRADABLE) -> str:
    """``grades.csv``: learner, name, lms, lms_id, score, max_score, late, status, reason, then raw_score,
    late_days, late_penalty, due, submitted, then a column per question. ``score`` is what an LMS import holds
    (after any late penalty; blank for a row not graded unless ``ungradable="zero"``), ``raw_score`` the
    notebook's own total."""
    return sheet_text(Sheet((), (), tuple(rows), ungradable), "csv")


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
