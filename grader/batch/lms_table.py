"""Every rule that differs from one LMS to another, in one table: one :class:`Lms` per LMS in :data:`LMSES`.

An LMS's row says how its "download all submissions" names each file (and, for Moodle, each learner's
folder), what those names carry of the learner (its roster column, whether its id is one per assignment,
which a chapter cannot join on), when the learner handed in as its names say, and how its grade-import file
is laid out. Everything else reads these rows: :mod:`grader.batch.layouts` (whose download it is, through
:func:`lms_names`), :mod:`grader.batch.late` (:attr:`Lms.handed_in`), :mod:`grader.batch.lms` (the import
files, :data:`FORMATS`), :mod:`grader.batch.roster` and :mod:`grader.batch.chapter` (:func:`lms_rule`), and
the commands' choices. Adding an LMS is one row here (and its acceptance rules in ``tests/lms_rules.py``);
``tests/test_registries.py`` fails on an LMS's name or a download's marker written anywhere else in code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.batch.model import Identity, row_reason
from grader.batch.names import LmsName, LmsPattern, safe_id
from grader.batch.sheet import Column, MoodleWords, Sheet, Table, score_cell
from grader.errors import UsageError
from grader.text import for_csv, num

# -- how each download names its files -----------------------------------------------------------------------

#: Blackboard's ``<assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>[_<file name>]``. The head ends at the
#: *first* ``_attempt_<time>``: the file name after it is the learner's own and may hold another (``x_attempt_
#: 2024-02-28-09-00-00_``), which must not change whose it is (nor, in :mod:`grader.batch.late`, when it came).
_ATTEMPT = r"attempt_\d{4}(?:-\d{2}){5}"
_BLACKBOARD = re.compile(rf"(?P<head>.+?)_{_ATTEMPT}(?:_.*)?", re.DOTALL)


@dataclass(frozen=True)
class BlackboardPattern(LmsPattern):
    """Blackboard joins the assignment's name and the username with ``_``, and either may hold ``_``.

    The part before ``_attempt_<timestamp>`` is ``<assignment>_<username>``, and every file of one download
    has the same assignment. So the assignment is a prefix (ending before a ``_``) of every file's head:
    the known assignment name (the lesson's title or id, or ``--export-name``) when one fits, else the one
    prefix all the heads share. Where several prefixes remain (one file, or usernames that all begin
    alike), the name is ambiguous, and is never guessed: :meth:`parse_all` gives None for it.
    """

    def parse(self, stem: str) -> LmsName | None:
        return self.parse_all([stem])[0]

    def parse_all(self, stems: Sequence[str], assignments: Sequence[str] = ()) -> list[LmsName | None]:
        heads = [m.group("head") if (m := self.regex.fullmatch(stem)) else None for stem in stems]
        options = [_prefixes(head) if head is not None else set() for head in heads]
        shared = set.intersection(*(o for o in options if o)) if any(options) else set()
        known = {_fold(name) for name in assignments if name}
        out: list[LmsName | None] = []
        for head, prefixes in zip(heads, options, strict=True):
            named = {p for p in prefixes if _fold(p) in known}
            choice = named or (prefixes & shared if shared else prefixes)
            if head is None or len(choice) != 1:
                out.append(None)
                continue
            username = head[len(next(iter(choice))) + 1 :]
            out.append(LmsName(safe_id(username), identity=Identity(self.name, username, username)))
        return out


def _prefixes(head: str) -> set[str]:
    """Every way to cut ``head`` at a ``_`` into a non-empty assignment and a non-empty username."""
    return {head[:i] for i, char in enumerate(head) if char == "_" and 0 < i < len(head) - 1}


#: Moodle's marker between a participant's name and id and the file's own name.
_MOODLE_MARKER = re.compile(r"_\d+_assignsubmission_")


@dataclass(frozen=True)
class MoodlePattern(LmsPattern):
    """Moodle writes ``<full name>_<participant id>_assignsubmission_file_<file name>``, and the learner may
    choose both the full name (a profile field) and the file's name: a name that holds the marker itself
    (``Eve_12345_assignsubmission_file_x``) would read as participant 12345. A name with the marker more than
    once does not say which participant it is, so it does not follow the pattern: it is graded under its file
    name, reported, and left out of the import, never guessed onto someone."""

    def parse(self, stem: str) -> LmsName | None:
        if len(_MOODLE_MARKER.findall(stem)) > 1:
            return None
        return super().parse(stem)


def _fold(name: str) -> str:
    """An assignment name as compared with a file name's: case, spaces and underscores alike."""
    return unicodedata.normalize("NFC", name).casefold().replace(" ", "_")


#: Blackboard's attempt time in a file name (the first ``_attempt_<time>``, as :data:`_BLACKBOARD` reads).
_BLACKBOARD_TIME = re.compile(r"_attempt_(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})")


def _attempt_time(name: str) -> str:
    """Blackboard's attempt time, in the local time zone, as Blackboard writes the time of the course's server."""
    found = _BLACKBOARD_TIME.search(name)
    if found is None:
        return ""
    year, month, day, hour, minute, second = map(int, found.groups())
    try:
        return datetime(year, month, day, hour, minute, second).astimezone().isoformat()
    except ValueError:  # not a real time (month 13): no time rather than a guess
        return ""


def _no_time(name: str) -> str:
    """Canvas writes no time in its names, only its ``_LATE_`` flag."""
    return ""


# -- how each LMS's import file is laid out -------------------------------------------------------------------


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
    """``grades.csv``'s layout: everything the batch knows of each row (:func:`grader.batch.lms.grades_csv`)."""
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
    """One grade-import layout: an LMS's (:attr:`Lms.export`), or the plain ``csv`` one. The CLI's choices, the
    file's name, which learners it can hold and the chapter export are derived from :data:`FORMATS`."""

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


# -- how each LMS's roster export is read (``grade roster``) ---------------------------------------------------


def _columns(path: Path, records: list[dict[str, str]], wanted: Mapping[str, bool]) -> dict[str, str]:
    """The export's header for each wanted column (case and spaces ignored); :class:`UsageError` for a required one
    that is missing."""
    header = {" ".join(str(k).split()).casefold(): str(k) for k in (records[0] if records else {}) if k is not None}
    found = {want: header[want.casefold()] for want in wanted if want.casefold() in header}
    missing = [want for want, required in wanted.items() if required and want not in found]
    if missing:
        raise UsageError(
            f"{path} has no {', '.join(repr(m) for m in missing)} column: give the LMS's roster export as it "
            f"downloaded it (its columns: {', '.join(header.values()) or 'none'})."
        )
    return found


#: One learner of an LMS export: their base learner id, identity, full name and LMS columns.
_Person = tuple[str, str, str, tuple[tuple[str, str], ...]]


def _canvas_people(path: Path, records: list[dict[str, str]]) -> list[_Person]:
    columns = _columns(path, records, {"Student": True, "ID": True})
    people: list[_Person] = []
    for record in records:
        student, user = ((record.get(columns[c]) or "").strip() for c in ("Student", "ID"))
        if not user.isdigit():
            continue  # the "Points Possible" row, a blank line
        last, _, first = student.partition(",")
        base = safe_id(f"{last} {first}".strip() or user).lower()
        people.append((base, user, " ".join(f"{first} {last}".split()), (("canvas_id", user),)))
    return people


def _moodle_people(path: Path, records: list[dict[str, str]]) -> list[_Person]:
    wanted = {"First name": True, "Last name": True, "Email address": False, "Username": False, "ID number": False}
    columns = _columns(path, records, wanted)
    keys = [c for c in ("Username", "ID number", "Email address") if c in columns]
    if not keys:
        raise UsageError(
            f"{path} has no Username, ID number or Email address column, so nothing names a learner the same way in "
            "every assignment: show one of them on Moodle's Participants page and download it again."
        )
    people: list[_Person] = []
    for record in records:
        first, last = ((record.get(columns[c]) or "").strip() for c in ("First name", "Last name"))
        identity = next((v for k in keys if (v := (record.get(columns[k]) or "").strip())), "")
        if not identity:
            continue
        full = " ".join(f"{first} {last}".split())
        people.append(
            (safe_id(f"{last} {first}".strip() or identity).lower(), identity, full, (("moodle_name", full),))
        )
    return people


# -- the table ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lms:
    """One LMS: everything the grader does differently for it."""

    download: LmsPattern
    """How its "download all submissions" names each file; its ``name`` is the LMS's (:attr:`Identity.lms`)."""
    export: LmsFormat
    """Its grade-import file (``--export``, ``grade export --to``, ``grade chapter --export``)."""
    handed_in: Callable[[str], str] | None
    """When the learner handed in, from a file's name in its download (ISO 8601, or empty: its names carry no
    time); ``None``: the names say nothing of it, so the file's own time is used (:mod:`grader.batch.late`)."""
    folders: LmsPattern | None = None
    """How its download names a learner's folder, when it can give a folder per learner."""
    roster: Callable[[Path, list[dict[str, str]]], list[_Person]] | None = None
    """The learners of its own roster export (``grade roster --lms``, by its export's name), if it has one
    :mod:`grader.batch.roster` reads."""
    words: type[MoodleWords] | None = None
    """The header words its importer finds its columns by, in the site's language (given with their option,
    :attr:`MoodleWords.OPTION`), if it finds them by words the site translates."""

    @property
    def name(self) -> str:
        return self.download.name


#: Every LMS, by its name (:attr:`Identity.lms`), in the order a download's names are tried (:func:`lms_names`).
LMSES: dict[str, Lms] = {
    lms.name: lms
    for lms in (
        Lms(
            # lovelaceada_12345_67890_decode.ipynb, lovelaceada_LATE_12345_67890_decode-1.ipynb; the name is the
            # learner's sortable name with punctuation and spaces dropped, but not underscores ("Lee, Min_Jun" is
            # leemin_jun_104349_9000404_request.ipynb), so the name is whatever comes before the first
            # ``_[LATE_]<user id>_<submission id>_``: read from the numeric ids, never from the name's own
            # characters (never a name with Moodle's own marker in it: ``X_0_1_assignsubmission_file_`` is
            # Moodle's; nor one with Blackboard's attempt marker: ``Lab_1_0_0_attempt_<time>_x`` is Blackboard's,
            # whose usernames hold digits)
            LmsPattern(
                "Canvas",
                roster_column="canvas_id",
                carries="the Canvas user id",
                regex=re.compile(
                    rf"(?!.*_assignsubmission_)(?!.*_{_ATTEMPT})(?P<learner>.+?)_(?P<late>LATE_)?(?P<id>\d+)_\d+_.+",
                    re.DOTALL,
                ),
            ),
            LmsFormat("canvas", "Canvas", _canvas, chapter=True),
            handed_in=_no_time,
            roster=_canvas_people,
        ),
        Lms(
            # Ada Lovelace_12345_assignsubmission_file_decode.ipynb
            MoodlePattern(
                "Moodle",
                re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_file_.+", re.DOTALL),
                roster_column="moodle_name",
                carries="the full name and a participant id that changes from assignment to assignment",
                per_assignment=True,
            ),
            LmsFormat("moodle", "Moodle", _moodle, chapter=False),  # Moodle's worksheet is one assignment's
            handed_in=None,
            # "download submissions in folders" (its default): Ada Lovelace_12345_assignsubmission_file_/decode.ipynb,
            # beside a folder per other submission plugin (Ada Lovelace_12345_assignsubmission_onlinetext_/)
            folders=LmsPattern(
                "Moodle",
                re.compile(r"(?P<learner>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?", re.DOTALL),
                roster_column="moodle_name",
                per_assignment=True,
            ),
            roster=_moodle_people,
            words=MoodleWords,
        ),
        Lms(
            # Decode_alovelace_attempt_2024-03-01-09-30-00_decode.ipynb, Decode_j_nunez_attempt_...
            BlackboardPattern("Blackboard", _BLACKBOARD, roster_column="blackboard_username", carries="the username"),
            LmsFormat("blackboard", "Blackboard", _blackboard, chapter=True, quote_all=True, note=_blackboard_note),
            handed_in=_attempt_time,
        ),
    )
}

#: The grade-import layouts, by the name the commands take: each LMS's, and ``grades.csv``'s for any other
#: gradebook (a chapter has its chapter.csv).
FORMATS: dict[str, LmsFormat] = {
    f.name: f for f in (*(lms.export for lms in LMSES.values()), LmsFormat("csv", "", _grades, chapter=False))
}
#: What ``grade batch --export`` and ``grade export --to`` take.
EXPORTS = tuple(FORMATS)
#: What ``grade chapter --export`` takes.
CHAPTER_EXPORTS = tuple(name for name, f in FORMATS.items() if f.chapter)
#: The download names of each LMS, in the order they are tried.
LMS_PATTERNS: tuple[LmsPattern, ...] = tuple(lms.download for lms in LMSES.values())
#: LMS downloads with a folder per learner, read from the folder's name (the files inside keep their names).
LMS_FOLDER_PATTERNS: tuple[LmsPattern, ...] = tuple(lms.folders for lms in LMSES.values() if lms.folders)
#: What ``grade roster --lms`` takes: each LMS whose roster export it reads.
ROSTER_EXPORTS = tuple(lms.export.name for lms in LMSES.values() if lms.roster)
#: The option that gives an LMS's header words in its site's language (``grade export --moodle-words``).
HEADER_WORDS = next(lms.words.OPTION for lms in LMSES.values() if lms.words)


def lms_rule(lms: str) -> LmsPattern | None:
    """The download's pattern (and so the identity rule) of the LMS named ``lms`` (:data:`LMSES`), or None."""
    found = LMSES.get(lms)
    return found.download if found is not None else None


def identity_value(identity: Identity) -> str:
    """What of ``identity`` names the learner across assignments: the LMS id, or for an LMS whose id is per
    assignment (Moodle) the display name; empty when it has no LMS."""
    rule = lms_rule(identity.lms)
    if rule is None:
        return ""
    return identity.name if rule.per_assignment else identity.lms_id


def lms_names(
    stems: Sequence[str], patterns: tuple[LmsPattern, ...] = LMS_PATTERNS, assignments: Sequence[str] = ()
) -> tuple[str, list[LmsName | None]] | None:
    """The first LMS pattern that more than half of the stems (or folder names) match, with what each says:
    None for a name that does not match (it is reported by name and keeps no LMS identity, never guessed);
    ``None`` overall if no pattern fits most of them (a plain folder). ``assignments``: the names the
    assignment may have in the download (Blackboard's file names begin with it)."""
    if not stems:
        return None
    for pattern in patterns:
        parsed = pattern.parse_all(stems, assignments)
        if 2 * sum(p is not None for p in parsed) > len(stems):
            return pattern.name, parsed
    return None
