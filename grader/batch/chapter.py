"""A chapter's lessons graded as one: a row per learner, a column per lesson, and which lesson to re-teach first.

Each lesson stays one assignment with its own results folder (``grade batch ... --out results/<lesson>``), as
an LMS has one assignment per lesson. The chapter view reads those folders' gradebooks and brings them
together. Learners are matched across lessons by their LMS identity (the LMS's own id, read from the
download's file names) where the row has one, else by the batch's learner id; nothing is matched by a guess
(a display name, a similar id), because a grade joined to the wrong learner is as bad as a wrong verdict.
Moodle's participant id is one per (assignment, learner), so Moodle rows are never joined across lessons (unless the
batches were given the course roster, whose ids they are then joined on): each
is its own row, and the chapter says so (:func:`_moodle_not_joined`). A
learner who has two rows in one lesson's results gets no grade for that lesson, with the reason, rather than
one chosen for them.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.batch.lms_table import lms_rule
from grader.batch.model import Identity, Row, integrity_flags
from grader.batch.names import same_id
from grader.report.class_report import misconceptions
from grader.text import for_csv, num

#: How many misconceptions the chapter report names per lesson.
MISCONCEPTIONS_SHOWN = 3


@dataclass(frozen=True)
class LessonColumn:
    """One lesson of the chapter, as a column: its id, its title and its points."""

    id: str
    title: str
    max_score: float


@dataclass(frozen=True)
class Cell:
    """One learner's grade on one lesson: ``score`` is None when there is none (missing, ungradable, ambiguous)."""

    score: float | None
    learner: str = ""
    """The learner id the lesson's batch gave them (empty when they submitted nothing for it)."""
    reason: str = ""
    late: bool = False


@dataclass(frozen=True)
class ChapterRow:
    key: str
    """What the lessons' rows were matched on: ``Canvas 12345`` (an LMS and its id) or ``id ada`` (a learner id)."""
    identity: Identity
    cells: tuple[Cell, ...]
    """One per lesson column, in the chapter's order."""

    @property
    def total(self) -> float:
        """Points earned over the chapter: a lesson without a grade adds nothing."""
        return sum(c.score for c in self.cells if c.score is not None)


@dataclass(frozen=True)
class Chapter:
    columns: tuple[LessonColumn, ...]
    rows: tuple[ChapterRow, ...]
    notes: tuple[str, ...] = ()
    """What a teaching assistant should know: learners with two rows in a lesson, identities seen both ways."""

    @property
    def max_score(self) -> float:
        return sum(c.max_score for c in self.columns)


def match_key(row: Row) -> str:
    """The key a learner is matched on across lessons: their course roster id when the batch was given the roster
    (the same in every lesson and LMS), else their LMS id where the file name gave one, else their id."""
    who = row.identity
    if who.roster:
        return f"roster {same_id(who.roster)}"
    if who.lms and who.lms_id:
        return f"{who.lms} {unicodedata.normalize('NFC', who.lms_id)}"  # as macOS (NFD) or Linux (NFC) wrote it
    return f"id {same_id(row.learner)}"  # Ada and ada are one id (a batch never gives them to two learners)


def chapter_of(lessons: Sequence[tuple[LessonColumn, Sequence[Row]]]) -> Chapter:
    """Bring the lessons' rows together: one :class:`ChapterRow` per learner key, a :class:`Cell` per lesson."""
    columns = tuple(column for column, _ in lessons)
    cells: dict[str, list[Cell]] = {}
    identities: dict[str, Identity] = {}
    notes = _moodle_not_joined(lessons)
    for i, (column, rows) in enumerate(lessons):
        counts = Counter(match_key(r) for r in rows)
        for row in rows:
            key = match_key(row)
            identities.setdefault(key, row.identity)
            empty = NOT_JOINED if notes and _unjoinable(row) else "no submission"
            slot = cells.setdefault(key, [Cell(None, reason=empty) for _ in columns])
            if counts[key] > 1:
                learners = sorted(r.learner for r in rows if match_key(r) == key)
                slot[i] = Cell(None, reason=f"{counts[key]} submissions ({', '.join(learners)}): grade one of them")
                note = f"{column.id}: {key} has {counts[key]} rows ({', '.join(learners)}); no grade was taken"
                notes += [note] if note not in notes else []
            else:
                slot[i] = _cell(row)
    notes += _seen_both_ways(lessons) + _told_apart_in_one_lesson_only(lessons)
    rows_out = tuple(ChapterRow(key, identities[key], tuple(c)) for key, c in sorted(cells.items()))
    return Chapter(columns, rows_out, tuple(notes))


#: Why a Moodle row's other lessons are empty: it was never matched to that learner's rows there.
NOT_JOINED = "not joined: Moodle's participant ids differ per lesson, see the note"


def _moodle_not_joined(lessons: Sequence[tuple[LessonColumn, Sequence[Row]]]) -> list[str]:
    """Moodle's download names carry the participant id, which Moodle gives per (assignment, learner)
    (``get_uniqueid_for_user``), and nothing else that is the same across assignments but the display name,
    which is no identity. So a chapter with Moodle rows and more than one lesson cannot join them: said, with
    what the teaching assistant can do."""
    moodle = [column.id for column, rows in lessons if any(_unjoinable(r) for r in rows)]
    if not moodle or len(lessons) < 2:
        return []
    return [
        f"Moodle rows ({', '.join(moodle)}) are not joined across lessons: Moodle gives each learner a different "
        "participant id in each assignment, so a Moodle learner is one row per lesson here and the totals are "
        "not theirs. Import each lesson from its own results folder (grade export RESULTS/<lesson> --to moodle); "
        "for a chapter table, grade every lesson with the course roster (grade roster PARTICIPANTS.csv --lms moodle, "
        "then grade class ... --roster roster.csv), which maps each Moodle learner to one learner id"
    ]


def _unjoinable(row: Row) -> bool:
    """A row keyed on an LMS id that is one per assignment (Moodle's), with no roster id to join it on."""
    rule = lms_rule(row.identity.lms)
    return rule is not None and rule.per_assignment and not row.identity.roster


def _counted(chapter: Chapter) -> str:
    """``12 learners``, or ``12 rows`` when Moodle rows were not joined (one learner may be several rows)."""
    unjoined = any(c.reason == NOT_JOINED for r in chapter.rows for c in r.cells)
    return (
        f"{len(chapter.rows)} rows (Moodle rows not joined across lessons)"
        if unjoined
        else f"{len(chapter.rows)} learners"
    )


def _cell(row: Row) -> Cell:
    if row.status != "graded" or row.report is None:
        return Cell(None, row.learner, f"{row.status}: {row.reason}" if row.reason else row.status, row.late)
    return Cell(row.final_score, row.learner, "", row.late)  # after any late penalty, as the LMS import holds


_TAGGED = re.compile(r"(?P<base>.+)-[0-9a-f]{6,}")


def _told_apart_in_one_lesson_only(lessons: Sequence[tuple[LessonColumn, Sequence[Row]]]) -> list[str]:
    """Ids a batch tagged (``ada-1a2b3c``: two names cleaned alike in that lesson, ``ada`` and ``adá``) whose
    plain form is an id in another lesson: those lessons' ``ada`` may be either person. Said, never joined."""
    plain = {same_id(r.learner) for _, rows in lessons for r in rows if not r.identity.lms_id}
    tagged = {r.learner for _, rows in lessons for r in rows if not r.identity.lms_id and _TAGGED.fullmatch(r.learner)}
    bases = sorted({m["base"] for t in tagged if (m := _TAGGED.fullmatch(t)) and same_id(m["base"]) in plain})
    return [
        f"{base}: names that clean to this id were told apart in one lesson and not in another, so the row "
        f"'id {base}' may join two people: give those learners distinct file names and regrade"
        for base in bases
    ]


def _seen_both_ways(lessons: Sequence[tuple[LessonColumn, Sequence[Row]]]) -> list[str]:
    """Learner ids that have an LMS identity in one lesson and none in another: kept as two rows, and said."""
    with_lms = {r.learner for _, rows in lessons for r in rows if r.identity.lms_id}
    without = {r.learner for _, rows in lessons for r in rows if not r.identity.lms_id}
    return [
        f"{learner} has an LMS identity in one lesson's results and none in another's: kept as two rows"
        for learner in sorted(with_lms & without)
    ]


def chapter_csv(chapter: Chapter) -> str:
    """``chapter.csv``: who (key, name, LMS, LMS id), a score column per lesson, the total and its maximum, and
    per lesson the learner id and why a cell is empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    ids = [c.id for c in chapter.columns]
    writer.writerow(
        ["key", "name", "lms", "lms_id", *map(for_csv, ids), "total", "max_score"]
        + [for_csv(f"{i} reason") for i in ids]
    )
    for row in chapter.rows:
        who = row.identity
        scores = ["" if c.score is None else num(c.score) for c in row.cells]
        reasons = [for_csv(c.reason + (" (late)" if c.late else "")) for c in row.cells]
        writer.writerow(
            [for_csv(row.key), for_csv(who.name), who.lms, for_csv(who.lms_id), *scores]
            + [num(row.total), num(chapter.max_score), *reasons]
        )
    return buffer.getvalue()


@dataclass(frozen=True)
class Reteach:
    """One lesson's place in "what to re-teach first": the share of its points the class lost, and its slips."""

    lesson: str
    graded: int
    """Notebooks of this lesson that were graded (the share is over these)."""
    lost: float
    """Share of the points lost over the graded notebooks, 0..1."""
    misconceptions: tuple[tuple[str, str, int], ...]
    """(question, the slip as the feedback named it, learners), most learners first."""
    flagged: tuple[tuple[str, str], ...] = ()
    """(learner, integrity flag) of this lesson's notebooks: left out of the share lost and the misconceptions."""


def reteach_first(lessons: Sequence[tuple[LessonColumn, Sequence[Row]]]) -> tuple[Reteach, ...]:
    """The lessons ordered by the share of points the class lost on them, each with its commonest slips.

    A lesson nobody's notebook was graded on says nothing and comes last. A notebook with an integrity flag (released
    to someone else, right only for other numbers) is no evidence of what the class understood: it is listed, not
    counted.
    """
    found = []
    for column, rows in lessons:
        flagged = tuple((r.learner, flag) for r in rows for flag in integrity_flags(r))
        graded = [r for r in rows if r.status == "graded" and r.report is not None and not integrity_flags(r)]
        possible = sum(r.max_score or 0.0 for r in graded)
        lost = 1.0 - sum(r.score for r in graded) / possible if possible else 0.0  # raw: what was understood
        slips = sorted(misconceptions(rows), key=lambda m: -len(m.learners))[:MISCONCEPTIONS_SHOWN]
        counted = tuple((m.question, m.text, len(m.learners)) for m in slips)
        found.append(Reteach(column.id, len(graded), lost, counted, flagged))
    return tuple(sorted(found, key=lambda r: (r.graded == 0, -r.lost, r.lesson)))


def reteach_markdown(chapter: Chapter, order: Sequence[Reteach]) -> str:
    """``chapter.md``: the chapter's figures and what to re-teach first, for a teaching assistant to read."""
    lines = [f"# The chapter: {len(chapter.columns)} lessons, {_counted(chapter)}", ""]
    lines += ["## Integrity: to look at before you import", ""]
    flagged = [(item.lesson, who, flag) for item in order for who, flag in item.flagged]
    lines += [f"- `{lesson}` {who}: {flag}" for lesson, who, flag in flagged] or [
        "No notebook was released to someone else or is right only for other numbers (similar code: each lesson's "
        "summary.html)."
    ]
    lines += ["", "## What to re-teach first", ""]
    for n, item in enumerate(order, 1):
        if not item.graded:
            lines.append(f"{n}. `{item.lesson}`: no notebook graded yet.")
            continue
        lines.append(f"{n}. `{item.lesson}`: the class lost {item.lost:.0%} of its points ({item.graded} graded).")
        lines += [f"   - `{q}` ({k} learner{'' if k == 1 else 's'}): {text}" for q, text, k in item.misconceptions]
    if chapter.notes:
        lines += ["", "## Check before you import", ""] + [f"- {note}" for note in chapter.notes]
    return "\n".join(lines) + "\n"


def write_chapter(out: Path, chapter: Chapter, order: Sequence[Reteach]) -> tuple[Path, Path]:
    """Write ``chapter.csv`` and ``chapter.md`` into ``out``."""
    from grader.files import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    grades, report = out / "chapter.csv", out / "chapter.md"
    write_atomic(grades, chapter_csv(chapter))
    write_atomic(report, reteach_markdown(chapter, order))
    return grades, report


def lesson_results(results: Path, lessons_root: Path | None = None) -> tuple[LessonColumn, list[Row]]:
    """One lesson's results folder (what ``grade batch --out`` wrote), as :mod:`grader.batch.results` reads it
    (checked, late policy applied): its column and every learner's latest row.

    The column takes the lesson's title and points from its definition when the lesson can be found, else its
    id and the highest maximum among the rows.
    """
    from grader.batch.results import read_results
    from grader.errors import GraderError
    from grader.lessons import load_lesson

    found = read_results(results)
    rows = list(found.rows)
    try:
        lesson = load_lesson(found.lesson_id, lessons_root)
        return LessonColumn(lesson.id, lesson.title, lesson.max_score), rows
    except GraderError:
        return LessonColumn(found.lesson_id, found.lesson_id, max(r.max_score or 0.0 for r in rows)), rows


#: In a chapter's folder: the import a command was asked for (its LMS and column headers), so that every later
#: writing of the chapter writes that import again and it never lags behind ``chapter.csv``.
EXPORT_FILE = "chapter-export.json"


def write_chapter_view(
    out: Path,
    lessons: Sequence[tuple[LessonColumn, Sequence[Row]]],
    export: str | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[Chapter, str]:
    """Write ``chapter.csv``, ``chapter.md`` and the chapter's LMS import into ``out``; return the chapter and
    what was written.

    ``export`` (with ``names``, a lesson's column header) writes ``<lms>-import.csv`` (:func:`chapter_export`),
    checked before anything is written, and is remembered in :data:`EXPORT_FILE`; without it the import an
    earlier command asked for is written again from these grades, or removed, with the reason, when it can no
    longer be written (the chapter's learners are no longer that LMS's), so no import file says older grades
    than ``chapter.csv``."""
    import json

    from grader.batch.lms_table import FORMATS
    from grader.errors import UsageError
    from grader.files import write_atomic

    chapter = chapter_of(lessons)
    previous = _remembered_export(out)
    earlier = None if export is not None else previous
    said_export = ""
    imported: tuple[str, str] | None = None
    if export is not None:
        imported = chapter_export(chapter, export, names)  # a UsageError here stops before anything is written
        if previous is not None and previous[0] != export and (out / FORMATS[previous[0]].file_name).exists():
            (out / FORMATS[previous[0]].file_name).unlink()  # the import asked for before, from older grades
            said_export = f"; {FORMATS[previous[0]].file_name} (asked for before) was removed: its grades are older"
    elif earlier is not None:
        export, names = earlier
        try:
            imported = chapter_export(chapter, export, names)
        except UsageError as err:
            (out / FORMATS[export].file_name).unlink(missing_ok=True)
            said_export = f"; {FORMATS[export].file_name} was removed, as it could not be written again: {err}"
    grades, report = write_chapter(out, chapter, reteach_first(lessons))
    said = _said(chapter, grades, report)
    if export is not None and imported is not None:
        path = out / FORMATS[export].file_name
        write_atomic(path, imported[0])
        if earlier is None:
            write_atomic(out / EXPORT_FILE, json.dumps({"export": export, "names": dict(names or {})}, indent=1) + "\n")
        again = ", as an earlier command asked" if earlier is not None else ""
        said_export += f"; the {export} import, a column per lesson: {path}{again}{imported[1]}"
    return chapter, said + said_export + _notes(chapter)


def _remembered_export(out: Path) -> tuple[str, dict[str, str]] | None:
    """The import an earlier command wrote into this chapter folder (:data:`EXPORT_FILE`), or None."""
    import json

    from grader.batch.lms_table import FORMATS
    from grader.errors import UsageError

    path = out / EXPORT_FILE
    if not path.is_file():
        return None
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        export, names = str(body["export"]), {str(k): str(v) for k, v in body["names"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise UsageError(f"{path} is damaged ({err}); give --export again, or delete it for no import.") from None
    if export not in FORMATS:
        raise UsageError(f"{path} names {export!r}, not an LMS this grader writes; give --export again.")
    return export, names


def _said(chapter: Chapter, grades: Path, report: Path) -> str:
    """What was written, and how many notes ``chapter.md`` lists."""
    said = f"{_counted(chapter)} over {len(chapter.columns)} lessons: {grades} and {report}"
    return said + (f"; {len(chapter.notes)} thing(s) to check first, listed in {report.name}" if chapter.notes else "")


def _notes(chapter: Chapter) -> str:
    """The chapter's notes as console lines after what was written: a note the console does not show is missed."""
    return "".join(f"\n  note: {note}" for note in chapter.notes)


def chapter_export(chapter: Chapter, to: str, names: Mapping[str, str] | None = None) -> tuple[str, str]:
    """The chapter's import file for ``to`` (one column per lesson, by the batch's own writers) and what to say
    of it: who was left out and why, and the LMS's note on the columns (``"; ..."`` or empty).

    ``names`` gives a lesson's column header as the LMS's own export writes it (Canvas ``Decode (123456)``,
    Blackboard ``Decode [Total Pts: 35 Score] |664617``), so the LMS updates that assignment; a lesson without
    one gets its title, and the LMS creates a new column. Only learners that LMS can match are written
    (:func:`grader.batch.lms.importable`); a lesson a learner has no grade for is a blank cell, which the LMS
    reads as "no change".
    """
    from grader.batch.lms import importable, sheet_text
    from grader.batch.lms_table import CHAPTER_EXPORTS, FORMATS
    from grader.batch.sheet import Column, Line, Sheet
    from grader.errors import UsageError

    if to not in CHAPTER_EXPORTS:
        raise UsageError(
            f"A chapter import goes to {' or '.join(CHAPTER_EXPORTS)}, whose import takes a column per lesson; "
            f"for {to}, export each lesson's results folder: grade export RESULTS/<lesson> --to {to}."
        )
    names = names or {}
    unknown = sorted(set(names) - {c.id for c in chapter.columns})
    if unknown:
        raise UsageError(f"--assignment names {', '.join(unknown)}, which are not lessons of this chapter.")
    chosen = importable(chapter.rows, to, _key, otherwise="grade chapter without --export: chapter.csv holds anyone")
    columns = tuple(Column(names.get(c.id, c.title), c.max_score) for c in chapter.columns)
    lines = tuple(
        Line(r.identity, tuple("" if c.score is None else num(c.score) for c in r.cells)) for r in chosen.rows
    )
    lms = FORMATS[to].lms
    left = ", ".join(f"{who} ({why})" for who, why in chosen.left_out)
    said = (f"; left out, as {lms} could not match them: {left}" if left else "") + FORMATS[to].note(columns)
    return sheet_text(Sheet(columns, lines), to), said


def _key(row: ChapterRow) -> str:
    return row.key
