"""Each LMS's acceptance rules for a grade-import file, re-implemented small, so a test can read our file the way
the LMS will: which learner gets which grade, and what the LMS would refuse or skip.

- Moodle (open source; rules read from its PHP, never copied): ``lib/csvlib.class.php``
  ``csv_import_reader::load_csv_content`` (decode, strip a UTF-8 BOM, trim, every row as long as the header:
  else ``csvweirdcolumns``), ``mod/assign/feedback/offline/importgradeslib.php``
  ``assignfeedback_offline_grade_importer::init`` (the header must hold the exact words ``Identifier``,
  ``Grade`` and ``Last modified (grade)``, else ``invalidgradeimport``) and ``next`` (the participant id is
  the identifier with ``Participant `` cut from its start; unknown ids are passed over), and
  ``mod/assign/feedback/offline/locallib.php`` ``process_import_grades`` (a blank or negative grade, one above
  the maximum, or one whose Moodle grade was changed more than 60 s after ``Last modified (grade)`` is skipped;
  a column named like a feedback plugin's field is imported as feedback).
- Canvas (its guides: the gradebook import): ``Student, ID, SIS User ID, SIS Login ID, Section`` lead, the
  ``Points Possible`` row is not a learner, learners are matched on ``ID``, a blank cell changes nothing, an
  assignment column named ``Name (id)`` updates that assignment and any other creates one.
- Blackboard Learn (its help, "Uploading External Grade Center Items"): every value of a comma file inside
  quotes, a ``Username`` column, a column header ending ``|<column id>`` updates that column and any other is
  created as a text column worth 0 points.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime


class Refused(Exception):
    """The LMS would refuse the whole file, with the error it would show."""


@dataclass(frozen=True)
class Imported:
    grades: dict[str, float]
    """The grade each learner (by the LMS's key) would get."""
    unchanged: set[str] = field(default_factory=set)
    """Learners the file names whose grade the LMS would leave as it is (a blank cell, a skipped row)."""
    new_column: bool = False
    """The LMS would create a new column (assignment) rather than update one."""


def _rows(text: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def _once(keys: list[str]) -> None:
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:  # the LMS keeps the last row: which grade a learner gets depends on row order
        raise Refused(f"learner(s) {twice} appear more than once")


def moodle(
    data: bytes,
    participants: dict[str, float | None],
    max_grade: float,
    words: tuple[str, str, str, str] = ("Identifier", "Participant ", "Grade", "Last modified (grade)"),
    feedback_fields: tuple[str, ...] = ("Feedback comments",),
) -> Imported:
    """``participants``: each participant id and the time (epoch seconds) their Moodle grade was last changed,
    ``None`` for one without a grade yet."""
    text = data.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").strip()
    rows = [r for r in _rows(text) if r != []]
    if not rows:
        raise Refused("csvemptyfile")
    header = rows[0]
    if any(len(r) != len(header) for r in rows):
        raise Refused("csvweirdcolumns")
    identifier, prefix, grade_word, modified_word = words
    if not all(w in header for w in (identifier, grade_word, modified_word)):
        raise Refused("invalidgradeimport")
    if any(f in header for f in feedback_fields):
        raise Refused(f"a column would be imported as feedback: {set(header) & set(feedback_fields)}")
    at = {w: header.index(w) for w in (identifier, grade_word, modified_word)}
    grades: dict[str, float] = {}
    unchanged: set[str] = set()
    seen: list[str] = []
    for row in rows[1:]:
        key = row[at[identifier]][len(prefix) :] if row[at[identifier]].startswith(prefix) else None
        if key is None or key not in participants:
            continue  # get_user_id_for_uniqueid finds nobody: the row is passed over
        seen.append(key)
        cell = row[at[grade_word]].strip()
        stamp = row[at[modified_word]].strip()
        modified = datetime.fromisoformat(stamp).timestamp() if stamp else 0.0  # strtotime('') is false
        changed = participants[key]
        stale = changed is not None and changed > modified + 60
        if cell == "" or float(cell) < 0 or float(cell) > max_grade or stale:
            unchanged.add(key)
        else:
            grades[key] = float(cell)
    _once(seen)
    return Imported(grades, unchanged)


_CANVAS_LEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def canvas(text: str, students: set[str], column: int = 0) -> Imported:
    """``students``: the Canvas user ids enrolled; ``column``: which assignment column to read (0: the first)."""
    rows = _rows(text.removeprefix("\ufeff"))
    at = 5 + column
    if not rows or rows[0][:5] != _CANVAS_LEAD or len(rows[0]) <= at:
        raise Refused("not a Canvas gradebook file: it must start Student, ID, SIS User ID, SIS Login ID, Section")
    body = rows[1:]
    if body and body[0][0].strip() == "Points Possible":
        body = body[1:]
    grades: dict[str, float] = {}
    unchanged: set[str] = set()
    seen = []
    for row in body:
        key = row[1]
        if key not in students:
            raise Refused(f"no student with ID {key!r}")
        seen.append(key)
        if row[at] == "":
            unchanged.add(key)
        else:
            grades[key] = float(row[at])
    _once(seen)
    return Imported(grades, unchanged, new_column=re.search(r" \(\d+\)$", rows[0][at]) is None)


def blackboard(data: bytes, usernames: set[str], column: int = -1) -> Imported:
    """``column``: which grade column to read, counted after ``Username`` (-1: the last)."""
    text = data.decode("utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not re.fullmatch(r'"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*', line):
            raise Refused(f"line {number}: a comma file's every value must be inside quotes")
    rows = _rows(text)
    header = rows[0]
    if "Username" not in header:
        raise Refused("no Username column")
    user = header.index("Username")
    at = column if column < 0 else user + 1 + column
    name = header[at]
    grades: dict[str, float] = {}
    unchanged: set[str] = set()
    seen = []
    for row in rows[1:]:
        key = row[user]
        if key not in usernames:
            raise Refused(f"no user {key!r} in the course")
        seen.append(key)
        if row[at] == "":
            unchanged.add(key)
        else:
            grades[key] = float(row[at])
    _once(seen)
    return Imported(grades, unchanged, new_column=re.search(r"\|\d+$", name) is None)


#: Each LMS's reading of an import file, by the export layout's name: ``(file, the LMS's ids of the class, the
#: column's maximum, which grade column)``. An LMS added to ``grader.batch.lms.FORMATS`` needs its rules here.
READ: dict[str, Callable[[bytes, set[str], float, int], Imported]] = {
    "canvas": lambda data, keys, _max, column: canvas(data.decode("utf-8"), keys, column),
    "moodle": lambda data, keys, max_grade, _column: moodle(data, dict.fromkeys(keys), max_grade),
    "blackboard": lambda data, keys, _max, column: blackboard(data, keys, column),
}
