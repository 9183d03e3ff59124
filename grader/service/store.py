"""The service's store: every hand-in and every check, in one SQLite database in the course folder.

Nothing acknowledged is lost: :meth:`Store.submit` commits before the service answers with a receipt. The
database is in WAL mode (readers, the TA's view, never block the writer) with ``synchronous=FULL``: under WAL,
``NORMAL`` survives a killed process but may lose the last commits on a power cut, and a receipt the learner
holds is a promise that the hand-in survives both. The cost is one fsync per hand-in, which a course's rate of
submissions never notices.

One connection, guarded by a lock: the service calls the store from a thread pool (never on the event loop),
and SQLite serialises writers anyway.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.service.protocol import Receipt

_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL,
    lesson TEXT NOT NULL,
    idempotency_key TEXT,
    sha256 TEXT NOT NULL,
    received_at TEXT NOT NULL,
    late TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    notebook BLOB NOT NULL,
    UNIQUE (learner, lesson, idempotency_key),
    UNIQUE (learner, lesson, attempt)
);
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL,
    lesson TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    question TEXT NOT NULL,
    status TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    staff_feedback TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS check_notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL,
    lesson TEXT NOT NULL,
    checked_at TEXT NOT NULL,
    notes TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS checks_by_lesson ON checks (lesson, question, learner, id);
"""


@dataclass(frozen=True)
class CheckRow:
    """One question's verdict in one check: what the TA's live view counts."""

    learner: str
    lesson: str
    checked_at: str
    question: str
    status: str
    score: float
    max_score: float
    staff_feedback: tuple[str, ...]
    """The teaching assistant's lines (with expected values): stored for the TA's view, never sent to a learner."""


@dataclass(frozen=True)
class Stored:
    """A stored hand-in, with its notebook (what an export writes)."""

    receipt: Receipt
    notebook: bytes


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def submit(
        self, learner: str, lesson: str, key: str | None, notebook: bytes, sha256: str, received_at: str, late: str
    ) -> tuple[Receipt, bool]:
        """Store one hand-in, committed before this returns; ``(receipt, True)`` when stored now, ``(the first
        receipt, False)`` when ``key`` was stored before for this learner and lesson (a retried request)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if key is not None:
                    found = self._receipts("learner = ? AND lesson = ? AND idempotency_key = ?", (learner, lesson, key))
                    if found:
                        self._db.execute("COMMIT")
                        return found[0], False
                (last,) = self._db.execute(
                    "SELECT COALESCE(MAX(attempt), 0) FROM submissions WHERE learner = ? AND lesson = ?",
                    (learner, lesson),
                ).fetchone()
                cursor = self._db.execute(
                    "INSERT INTO submissions (learner, lesson, idempotency_key, sha256, received_at, late, attempt, "
                    "notebook) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (learner, lesson, key, sha256, received_at, late, last + 1, notebook),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        receipt = Receipt(
            id=int(cursor.lastrowid or 0),
            lesson=lesson,
            learner=learner,
            sha256=sha256,
            received_at=received_at,
            late=late,
            attempt=last + 1,
        )
        return receipt, True

    def receipts(self, learner: str, lesson: str) -> list[Receipt]:
        """One learner's hand-ins of one lesson, first first: all a learner may read of the store."""
        with self._lock:
            return self._receipts("learner = ? AND lesson = ?", (learner, lesson))

    def _receipts(self, where: str, args: Sequence[Any]) -> list[Receipt]:
        rows = self._db.execute(
            f"SELECT id, lesson, learner, sha256, received_at, late, attempt FROM submissions WHERE {where} "
            "ORDER BY attempt",
            args,
        ).fetchall()
        return [
            Receipt(id=r[0], lesson=r[1], learner=r[2], sha256=r[3], received_at=r[4], late=r[5], attempt=r[6])
            for r in rows
        ]

    def all_receipts(self) -> list[Receipt]:
        with self._lock:
            return self._receipts("1 = 1", ())

    def last_submissions(self) -> Iterator[Stored]:
        """Each learner's last hand-in of each lesson, with its notebook (what ``grade serve export`` writes)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, lesson, learner, sha256, received_at, late, attempt, notebook FROM submissions s "
                "WHERE attempt = (SELECT MAX(attempt) FROM submissions t WHERE t.learner = s.learner "
                "AND t.lesson = s.lesson) ORDER BY lesson, learner"
            ).fetchall()
        for r in rows:
            receipt = Receipt(
                id=r[0], lesson=r[1], learner=r[2], sha256=r[3], received_at=r[4], late=r[5], attempt=r[6]
            )
            yield Stored(receipt, bytes(r[7]))

    def record_checks(self, rows: Sequence[CheckRow], notes: Sequence[str] = ()) -> None:
        """One check's verdicts, and its notebook-level lines (a cell that raised, a time-out, the numbers flags)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            if rows:
                first = rows[0]
                self._db.execute(
                    "INSERT INTO check_notes (learner, lesson, checked_at, notes) VALUES (?, ?, ?, ?)",
                    (first.learner, first.lesson, first.checked_at, json.dumps(list(notes))),
                )
            self._db.executemany(
                "INSERT INTO checks (learner, lesson, checked_at, question, status, score, max_score, staff_feedback) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.learner,
                        r.lesson,
                        r.checked_at,
                        r.question,
                        r.status,
                        r.score,
                        r.max_score,
                        json.dumps(list(r.staff_feedback)),
                    )
                    for r in rows
                ],
            )
            self._db.execute("COMMIT")

    def checks(self) -> list[CheckRow]:
        """Every check's verdicts, oldest first (the TA's view reduces them)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT learner, lesson, checked_at, question, status, score, max_score, staff_feedback FROM checks "
                "ORDER BY id"
            ).fetchall()
        return [CheckRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], tuple(json.loads(r[7]))) for r in rows]

    def latest_notes(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """Each learner's latest check's notebook-level lines, by (lesson, learner); only those with some."""
        with self._lock:
            rows = self._db.execute(
                "SELECT lesson, learner, notes FROM check_notes c WHERE id = (SELECT MAX(id) FROM check_notes d "
                "WHERE d.learner = c.learner AND d.lesson = c.lesson) ORDER BY lesson, learner"
            ).fetchall()
        found = {(r[0], r[1]): tuple(json.loads(r[2])) for r in rows}
        return {key: notes for key, notes in found.items() if notes}

    def close(self) -> None:
        with self._lock:
            self._db.close()
