"""The gradebook: an SQLite file in the results folder that every batch output is regenerated from.

Each grading is committed on its own (WAL journal), so killing a batch loses only the notebooks being
graded at that moment, and the next run picks up where it stopped. Nothing is overwritten: a regrade adds
rows, and "the" grade of a learner is their latest one.

Tables: ``runs`` (one per ``grade batch``), ``gradings`` (one per learner per run that graded them, with the
full result as JSON), ``question_grades`` (one per question of a grading) and the view ``grades``, a row per
learner x question x grading with the content hash, suites hash, grader version and time.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from grader import __version__
from grader.batch.model import STATUSES, Row
from grader.batch.names import is_safe_id
from grader.config import DEFAULT_UNGRADABLE, DISK_FULL_WAIT_SECONDS, Ungradable
from grader.errors import ResultsUnwritable
from grader.model import QuestionResult
from grader.report.rows import row_from_dict, row_to_dict
from grader.text import plain

_T = TypeVar("_T")

FILE_NAME = "gradebook.sqlite"
#: The longest pause between two tries of a write while the disk is full.
_FULL_PAUSE_SECONDS = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    grader_version TEXT NOT NULL,
    source TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gradings (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    learner TEXT NOT NULL,
    path TEXT NOT NULL,
    lesson TEXT,
    digest TEXT NOT NULL,
    suites_hash TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    graded_at TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL,
    late INTEGER NOT NULL,
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gradings_by_learner ON gradings (learner, id);
CREATE TABLE IF NOT EXISTS question_grades (
    grading_id INTEGER NOT NULL REFERENCES gradings(id),
    question TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (grading_id, question)
);
CREATE VIEW IF NOT EXISTS grades AS
    SELECT g.run_id, g.learner, g.lesson, q.question, q.score, q.max_score, q.status,
           g.digest, g.suites_hash, g.grader_version, g.graded_at
    FROM question_grades q JOIN gradings g ON g.id = q.grading_id;
"""


#: Columns added after the first release, with their definitions: an older gradebook gains them when opened.
_ADDED_COLUMNS = {
    "gradings": {
        "options": "TEXT NOT NULL DEFAULT '{}'",  # grading_fingerprint(): every option that can change a score
        "lms": "TEXT NOT NULL DEFAULT ''",  # who the learner is to their LMS (rows.Identity)
        "lms_id": "TEXT NOT NULL DEFAULT ''",
        "name": "TEXT NOT NULL DEFAULT ''",
    },
    "runs": {
        "learners": "TEXT",  # the run's class (a JSON list of learner ids); NULL for a one-notebook run
        "export": "TEXT",  # the LMS import file it was asked for (JSON [layout, column name]); NULL if none
        "ungradable": "TEXT",  # what its LMS import holds for ungradable rows: blank or zero (BatchOptions)
    },
}


@dataclass(frozen=True)
class Latest:
    """What a learner's latest grading was of, and how it was graded: what decides whether to grade again."""

    digest: str
    suites_hash: str
    status: str
    options: dict[str, str]


def _stored_json(text: object) -> object:
    """A JSON column's value, or None if it is not JSON (a gradebook is a file others may have edited)."""
    try:
        return json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None


def _row_back(learner: str, result: object, digest: object) -> Row | str:
    """The row stored for ``learner``, or why it cannot be used (it names another learner, an unsafe file
    name, or does not parse)."""
    if not is_safe_id(learner):
        return "its learner id is not a safe file name"
    try:
        data = json.loads(result) if isinstance(result, str) else None
        row = row_from_dict(data, digest if isinstance(digest, str) else "") if isinstance(data, dict) else None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError):
        row = None
    if row is None or not _well_typed(row):
        return "it does not read back as a grading"
    if row.learner != learner:
        return f"it names another learner ({plain(str(row.learner), 120)!r})"
    return row


def _well_typed(row: Row) -> bool:
    """Whether every text a renderer reads from a stored row is text (JSON could hold anything there)."""
    who = row.identity
    texts: list[object] = [row.path, row.reason, who.lms, who.lms_id, who.name, who.roster]
    if row.report is not None:
        report = row.report
        texts += [report.lesson, report.path, *report.errors]
        for q in report.questions:
            texts += [q.id, q.status, *q.feedback, *q.staff]
    return row.status in STATUSES and all(isinstance(text, str) for text in texts)


_SQLITE_FULL = 13
"""SQLite's primary result code for a full disk (``sqlite3.SQLITE_FULL`` from Python 3.11 on)."""


def _disk_full(err: sqlite3.Error) -> bool:
    """Whether SQLite said the disk is full: its result code where Python gives it (3.11+), else its message."""
    code = getattr(err, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF == _SQLITE_FULL
    return "database or disk is full" in str(err)


def _unwritable(path: Path, err: sqlite3.Error, full: bool, waited: float) -> str:
    done, why = ("written", f"its disk stayed full for {waited:.0f} s") if full else ("used", str(err))
    return (
        f"The gradebook {path} could not be {done} ({why}). Free space on that disk (or give another --out), make "
        "sure no other grade is writing to the same results folder, and run the same command again: every notebook "
        "graded before this is kept in the gradebook and is not graded again."
    )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Gradebook:
    """The results folder's database; one writer (the batch's main process) at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._writing(self._open)

    def _open(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # with WAL: a killed process loses no committed row
        self._db.executescript(_SCHEMA)
        for table, columns in _ADDED_COLUMNS.items():
            have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            for column, definition in columns.items():
                if column not in have:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    def _writing(self, write: Callable[[], _T]) -> _T:
        """``write()``, tried again while the disk is full, for up to :data:`DISK_FULL_WAIT_SECONDS`.

        A learner's notebook can fill the disk its working folder shares with the results until its time runs out;
        its folder is deleted then. Stopping the batch at the first full disk would stop it on every rerun too, since
        that notebook is graded again each time. Each try is one transaction (a failed one is rolled back), so
        trying again writes each grading once. Any other failure, or a disk still full, is
        :class:`ResultsUnwritable`, with what was committed before kept.
        """
        waited, pause = 0.0, 0.25
        while True:
            try:
                return write()
            except sqlite3.Error as err:
                full = _disk_full(err)
                if not full or waited >= DISK_FULL_WAIT_SECONDS:
                    raise ResultsUnwritable(_unwritable(self.path, err, full, waited)) from None
            time.sleep(pause)
            waited += pause
            pause = min(pause * 2, _FULL_PAUSE_SECONDS)

    def start_run(self, source: str) -> int:
        return self._writing(
            lambda: int(
                self._db.execute(
                    "INSERT INTO runs (started_at, grader_version, source) VALUES (?, ?, ?)",
                    (_now(), __version__, source),
                ).lastrowid
                or 0
            )
        )

    def finish_run(self, run_id: int) -> None:
        self._set(run_id, "finished_at", _now())

    def _set(self, run_id: int, column: str, value: str) -> None:
        """One column of a run (a name written here, never a learner's text)."""
        self._writing(lambda: self._db.execute(f"UPDATE runs SET {column} = ? WHERE id = ?", (value, run_id)))

    def previous_run_unfinished(self, run_id: int) -> bool:
        """Whether the run before ``run_id`` never finished (killed or interrupted); its graded rows are kept."""
        row = self._db.execute(
            "SELECT finished_at FROM runs WHERE id < ? ORDER BY id DESC LIMIT 1", (run_id,)
        ).fetchone()
        return row is not None and row[0] is None

    def is_current(self, learner: str, digest: str, suites_hash: str) -> bool:
        """Whether the learner's latest grading was of this exact file against these exact suites.

        A ``crashed`` grading never counts as current: a crash may be the grading machine's fault (a
        sandbox that could not start), and retrying a notebook that crashes by itself costs little.
        """
        latest = self._db.execute(
            "SELECT digest, suites_hash, status FROM gradings WHERE learner = ? ORDER BY id DESC LIMIT 1", (learner,)
        ).fetchone()
        return latest is not None and (latest[0], latest[1]) == (digest, suites_hash) and latest[2] != "crashed"

    def latest_grading(self, learner: str) -> Latest | None:
        """The learner's latest grading's hashes, status and options; None if they were never graded here."""
        found = self._db.execute(
            "SELECT digest, suites_hash, status, options FROM gradings WHERE learner = ? ORDER BY id DESC LIMIT 1",
            (learner,),
        ).fetchone()
        if found is None:
            return None
        options = _stored_json(found[3])
        kept = {str(k): str(v) for k, v in options.items()} if isinstance(options, dict) else {}
        return Latest(str(found[0]), str(found[1]), str(found[2]), kept)  # bad options: regraded, never a traceback

    def set_roster(self, run_id: int, learners: Iterable[str]) -> None:
        """Remember the class of a run over a whole submissions folder (a one-notebook run keeps the last one)."""
        self._set(run_id, "learners", json.dumps(list(learners)))

    def roster(self) -> list[str]:
        """The learners of the latest run over a whole submissions folder, in its order (for a gradebook older
        than rosters: every learner it holds)."""
        found = self._db.execute(
            "SELECT learners FROM runs WHERE learners IS NOT NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        stored = _stored_json(found[0]) if found is not None else None
        if isinstance(stored, list) and all(isinstance(learner, str) for learner in stored):
            return stored  # else (none, or not a list of ids) every learner the gradebook holds
        return [r[0] for r in self._db.execute("SELECT learner FROM gradings GROUP BY learner ORDER BY MIN(id)")]

    def set_export(self, run_id: int, to: str, name: str | None) -> None:
        """Remember the LMS import file this run wrote, so later runs keep it up to date."""
        self._set(run_id, "export", json.dumps([to, name]))

    def last_export(self) -> tuple[str, str | None] | None:
        """The LMS import file the latest run that asked for one wrote: its layout and column name."""
        found = self._db.execute("SELECT export FROM runs WHERE export IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
        if found is None:
            return None
        stored = _stored_json(found[0])
        if not (isinstance(stored, list) and len(stored) == 2 and isinstance(stored[0], str)):
            return None  # not what set_export writes: no earlier export to keep up to date
        to, name = stored
        return to, name if isinstance(name, str) else None

    def set_ungradable(self, run_id: int, ungradable: Ungradable) -> None:
        """Remember what this run's LMS import holds for a row that is not ``graded`` (``blank`` or ``zero``)."""
        self._set(run_id, "ungradable", ungradable)

    def ungradable(self) -> Ungradable:
        """What the latest run chose for ungradable rows (``grade export`` writes the same); ``blank`` if none did."""
        found = self._db.execute(
            "SELECT ungradable FROM runs WHERE ungradable IS NOT NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return "zero" if found is not None and found[0] == "zero" else DEFAULT_UNGRADABLE

    def record(
        self, run_id: int, row: Row, digest: str, suites_hash: str, options: Mapping[str, str] | None = None
    ) -> None:
        """Store one grading and its questions in one transaction, committed before this returns.

        Its texts are stored :func:`~grader.text.plain` (SQLite refuses a lone surrogate), as
        :func:`row_to_dict` makes the JSON.
        """
        questions = row.report.questions if row.report else ()
        self._writing(lambda: self._insert(run_id, row, digest, suites_hash, options, questions))

    def _insert(
        self,
        run_id: int,
        row: Row,
        digest: str,
        suites_hash: str,
        options: Mapping[str, str] | None,
        questions: tuple[QuestionResult, ...],
    ) -> None:
        with self._db:  # a transaction: all of this grading or none of it
            self._db.execute("BEGIN IMMEDIATE")
            cursor = self._db.execute(
                "INSERT INTO gradings (run_id, learner, path, lesson, digest, suites_hash, grader_version, graded_at,"
                " status, reason, score, max_score, late, result, options, lms, lms_id, name)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    plain(row.learner),
                    plain(row.path),
                    row.lesson,
                    digest,
                    suites_hash,
                    __version__,
                    _now(),
                    row.status,
                    plain(row.reason),
                    row.score,
                    row.max_score,
                    int(row.late),
                    json.dumps(row_to_dict(row)),
                    json.dumps(dict(options or {})),
                    plain(row.identity.lms),
                    plain(row.identity.lms_id),
                    plain(row.identity.name),
                ),
            )
            self._db.executemany(
                "INSERT INTO question_grades (grading_id, question, score, max_score, status) VALUES (?, ?, ?, ?, ?)",
                [(cursor.lastrowid, q.id, q.score, q.max_score, q.status) for q in questions],
            )

    def latest(self, learners: Iterable[str]) -> list[Row]:
        """The latest grading of each of ``learners`` (in that order) that has one and reads back whole."""
        return self.latest_checked(learners)[0]

    def latest_checked(self, learners: Iterable[str]) -> tuple[list[Row], tuple[str, ...]]:
        """:meth:`latest`, and a note for each stored grading that was left out because it does not read back.

        A gradebook is a file in a folder others can write to, so what it holds is checked, never trusted:
        the stored row must be for the learner asked for (its id, which names their feedback files, must
        be the one queried and a safe file name) and must parse. A bad row is a note, never a traceback.
        """
        rows: list[Row] = []
        notes: list[str] = []
        for learner in learners:
            found = self._db.execute(
                "SELECT result, digest FROM gradings WHERE learner = ? ORDER BY id DESC LIMIT 1", (learner,)
            ).fetchone()
            if found is None:
                continue
            row = _row_back(learner, found[0], found[1])
            if isinstance(row, Row):
                rows.append(row)
            else:
                notes.append(f"the stored grading of {plain(learner, 120)!r} was left out: {row}; regrade them")
        return rows, tuple(notes)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
