"""What one LMS import file holds, whatever its LMS: its grade columns, a line per learner, and the cell each
learner's total becomes (:func:`score_cell`). The writers of each LMS's layout (:mod:`grader.batch.lms_table`)
turn a :class:`Sheet` into rows; :mod:`grader.batch.lms` chooses who goes in it and writes the file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, ClassVar

from grader.config import DEFAULT_UNGRADABLE, Ungradable
from grader.errors import UsageError
from grader.text import num, plain

if TYPE_CHECKING:  # only their attributes are read: ``grade --help`` imports this module for the table
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

    OPTION: ClassVar[str] = "--moodle-words"
    """The option that gives them (``grade export``)."""

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
                f"{cls.OPTION} takes four words separated by |: identifier, participant prefix, grade, "
                "last modified (grade), e.g. 'Identifier|Participant |Grade|Last modified (grade)'."
            )
        for part in parts:
            header_word(part, cls.OPTION)
        identifier, participant, grade, modified = parts
        words = cls(identifier.strip(), participant.lstrip(), grade=grade.strip(), modified=modified.strip())
        columns = [words.identifier, words.full_name, words.grade, words.maximum, words.modified]
        twice = sorted({w for w in columns if [c.casefold() for c in columns].count(w.casefold()) > 1})
        if twice:
            raise UsageError(
                f"{cls.OPTION} gives the worksheet two columns named {', '.join(map(repr, twice))} (its columns "
                f"are {', '.join(map(repr, columns))}): Moodle's importer would read the wrong one; copy the four "
                "words from one worksheet the site downloads."
            )
        return words


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
"""An import file's rows, header first."""


def score_cell(row: Row, ungradable: Ungradable = DEFAULT_UNGRADABLE) -> str:
    """The total as people write it (two decimals at most), after any late penalty; blank for a row that was not
    graded (``0`` with ``ungradable="zero"``) and always for a crashed grading, which may be the machine's fault."""
    if row.status == "crashed":
        return ""
    if row.status != "graded" or row.report is None:
        return "0" if ungradable == "zero" else ""
    return num(row.final_score)
