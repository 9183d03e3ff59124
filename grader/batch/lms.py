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

Each layout is one row of :data:`FORMATS` (its LMS, its writer, whether it takes a chapter's column per lesson,
what its note must say); the commands' choices and the chapter export are derived from it.

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
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from grader.batch.model import row_reason
from grader.config import DEFAULT_UNGRADABLE, Ungradable
from grader.errors import UsageError
from grader.files import write_atomic
from grader.text import for_csv, num, plain

if TYPE_CHECKING:  # only their attributes are read: ``grade --help`` imports this module for the table below
    from grader.batch.model import Identity, Row
    from grader.model import Lesson


@dataclass(frozen=True)
class Column:
    """An assignment column an import file fills (a batch's one, a chapter's one per lesson): its header and points."""

    name: str
    max_score: float

    @classmethod
    def of(cls, lesson: Lesson, name: str | None = None) -> Column:
        return cls(name or lesson.title, lesson.max_score)


def header_word(text: str, option: str) -> str:
    """``text`` (a column header or a word an LMS finds its columns by, given as ``option``) if it is one line
    of printable text: a newline, a carriage return or another control character would break the import's
    header row (``Decode\nInjected,Row``) or hide what the header says (bidi overrides), so it is refused."""
    if not text.strip():
        raise UsageError(f"{option} is empty: give the header's text, e.g. {option} 'Decode (123456)'.")
    if text != plain(text, None) or any(c in "\n\t\u2028\u2029" for c in text):
        raise UsageError(
            f"{option} {plain(text, 80)!r} holds a newline or another control character, which would break the "
            "import's header row: give it on one line, as the LMS's own export writes it."
        )
    return text


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
        for part in parts:
            header_word(part, "--moodle-words")
        identifier, participant, grade, modified = parts
        words = cls(identifier.strip(), participant.lstrip(), grade=grade.strip(), modified=modified.strip())
        columns = [words.identifier, words.full_name, words.grade, words.maximum, words.modified]
        twice = sorted({w for w in columns if [c.casefold() for c in columns].count(w.casefold()) > 1})
        if twice:
            raise UsageError(
                f"--moodle-words gives the worksheet two columns named {', '.join(map(repr, twice))} (its columns "
                f"are {', '.join(map(repr, columns))}): Moodle's importer would read the wrong one; copy the four "
                "words from one worksheet the site downloads."
            )
        return words


@dataclass(frozen=True)
class Export:
    path: Path
    note: str
    """What was written, for the end-of-batch summary: who was left blank or left out, and why."""


@dataclass(frozen=True)
class Line:
    """One learner's line of an import file: who the LMS matches, and a grade cell per column (blank: no change)."""

    identity: Identity
    grades: tuple[str, ...]


@dataclass(frozen=True)
class Sheet:
    """What one import file holds, whatever its LMS: its grade columns and a line per learner the LMS can match.

    A batch's sheet has one column (its lesson), a chapter's one per lesson (:mod:`grader.batch.chapter`), so
    both are written by the same writers. ``rows`` are the batch rows the lines come from, for the plain ``csv``
    layout, which writes all of each (``grades.csv``)."""

    columns: tuple[Column, ...]
    lines: tuple[Line, ...]
    rows: tuple[Row, ...] = ()
    ungradable: Ungradable = DEFAULT_UNGRADABLE
    stamp: str = ""
    """When the file was written (UTC, ISO 8601): Moodle's ``Last modified (grade)``."""
    words: MoodleWords = MoodleWords()

    @classmethod
    def of_rows(
        cls,
        rows: Sequence[Row],
        column: Column,
        ungradable: Ungradable = DEFAULT_UNGRADABLE,
        now: datetime | None = None,
        words: MoodleWords = MoodleWords(),
    ) -> Sheet:
        """One lesson's rows in one column: each learner's total as :func:`score_cell` writes it."""
        stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")
        lines = tuple(Line(row.identity, (score_cell(row, ungradable),)) for row in rows)
        return cls((column,), lines, tuple(rows), ungradable, stamp, words)


Table = list[list[str]]


def _canvas(sheet: Sheet) -> Table:
    lead = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    table = [[*lead, *(for_csv(c.name) for c in sheet.columns)]]
    table.append(["Points Possible", "", "", "", "", *(num(c.max_score) for c in sheet.columns)])
    return table + [
        [for_csv(line.identity.name), line.identity.lms_id, "", "", "", *line.grades] for line in sheet.lines
    ]


def _moodle(sheet: Sheet) -> Table:
    """One assignment's worksheet: its first column (:data:`FORMATS` says Moodle's is not a chapter's)."""
    words, column = sheet.words, sheet.columns[0]
    table = [[words.identifier, words.full_name, words.grade, words.maximum, words.modified]]
    for line in sheet.lines:
        who = line.identity
        table.append([f"{words.participant}{who.lms_id}", for_csv(who.name), line.grades[0]])
        table[-1] += [num(column.max_score), sheet.stamp]
    return table


def _blackboard_header(column: Column) -> str:
    return column.name if "|" in column.name else f"{column.name} [Total Pts: {num(column.max_score)} Score]"


def _blackboard(sheet: Sheet) -> Table:
    table = [["Last Name", "First Name", "Username", *(for_csv(_blackboard_header(c)) for c in sheet.columns)]]
    return table + [["", "", line.identity.lms_id, *line.grades] for line in sheet.lines]


def _blackboard_note(columns: Sequence[Column]) -> str:
    if all("|" in c.name for c in columns):
        return ""
    return (
        "; a column has no |<column id>, so Blackboard will create it as a text column worth 0 points, outside "
        "the totals: create the column in Grade Center, download it once and give its header with --export-name "
        "(grade export, grade chapter: --assignment)"
    )


def _grades(sheet: Sheet) -> Table:
    """``grades.csv``'s layout: everything the batch knows of each row (:func:`grades_csv`)."""
    rows, ungradable = sheet.rows, sheet.ungradable
    questions: list[str] = []
    for row in rows:
        for q in row.report.questions if row.report else ():
            if q.id not in questions:
                questions.append(q.id)
    head = ["learner", "name", "lms", "lms_id", "score", "max_score", "late", "status", "reason"]
    head += ["raw_score", "late_days", "late_penalty", "due", "submitted"]
    table = [[*head, *map(for_csv, questions)]]
    for row in rows:
        scores = {q.id: num(q.score) for q in row.report.questions} if row.report else {}
        who, late = row.identity, row.lateness
        cells = [for_csv(row.learner), for_csv(who.name), who.lms, for_csv(who.lms_id)]
        cells += [score_cell(row, ungradable), num(row.max_score)]
        cells += ["yes" if row.late else "no", row.status, for_csv(row_reason(row))]
        cells += [num(row.score) if row.report else ""]
        cells += [str(late.days), num(late.points_off), late.due] if late else ["", "", ""]
        cells += [row.submitted]
        table.append([*cells, *(scores.get(q, "") for q in questions)])
    return table


def _no_note(columns: Sequence[Column]) -> str:
    return ""


@dataclass(frozen=True)
class LmsFormat:
    """One grade-import layout. Adding an LMS is one of these in :data:`FORMATS` (with its download's file names
    in :data:`grader.batch.names.LMS_PATTERNS` and its acceptance rules in ``tests/lms_rules.py``): the CLI's
    choices, the file's name, which learners it can hold and the chapter export are derived from it."""

    name: str
    """What ``--export``, ``grade export --to`` and ``grade chapter --export`` take."""
    lms: str
    """The LMS whose download names the learners it can match (:attr:`Identity.lms`); empty: anyone."""
    write: Callable[[Sheet], Table]
    """The file's rows, header first."""
    chapter: bool
    """One file takes a column per lesson, so a chapter's grades go in one (``grade chapter --export``)."""
    quote_all: bool = False
    """Every value inside quotes (Blackboard requires it of a comma file); else only where a cell needs it."""
    note: Callable[[Sequence[Column]], str] = _no_note
    """What the LMS will do with these columns that the teaching assistant must hear (``""``: nothing)."""

    @property
    def file_name(self) -> str:
        return f"{self.name}-import.csv"


#: The grade-import layouts, by the name the commands take.
FORMATS: dict[str, LmsFormat] = {
    f.name: f
    for f in (
        LmsFormat("canvas", "Canvas", _canvas, chapter=True),
        LmsFormat("moodle", "Moodle", _moodle, chapter=False),  # Moodle's worksheet is one assignment's
        LmsFormat("blackboard", "Blackboard", _blackboard, chapter=True, quote_all=True, note=_blackboard_note),
        LmsFormat("csv", "", _grades, chapter=False),  # grades.csv; a chapter has its chapter.csv
    )
}
#: What ``grade batch --export`` and ``grade export --to`` take.
EXPORTS = tuple(FORMATS)
#: What ``grade chapter --export`` takes.
CHAPTER_EXPORTS = tuple(name for name, f in FORMATS.items() if f.chapter)


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


def score_cell(row: Row, ungradable: Ungradable = DEFAULT_UNGRADABLE) -> str:
    """The total as people write it (two decimals at most), after any late penalty; blank for a row that was not
    graded (``0`` with ``ungradable="zero"``) and always for a crashed grading, which may be the machine's fault."""
    if row.status == "crashed":
        return ""
    if row.status != "graded" or row.report is None:
        return "0" if ungradable == "zero" else ""
    return num(row.final_score)


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
