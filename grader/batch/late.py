"""The late policy: a due date, per-learner extensions and a penalty rule, applied to a batch's rows.

When a learner handed in (``submitted``) is read from what each layout really carries, never guessed:

- Canvas: only its ``_LATE_`` flag in the file name (Canvas writes no time there), so a flagged submission
  counts as one day late, the least it can be; an unflagged one is on time. The flag is against the course's
  due date: a flagged learner with a later extension is not penalised, and the teaching assistant is told to
  look up the time (never a penalty past an extension).
- Blackboard: the attempt time in the file name (``_attempt_2024-03-01-09-31-00``), read in the local time
  zone, as Blackboard writes the time of the course's server.
- Moodle, nbgrader and plain folders: nbgrader's ``timestamp.txt`` beside the notebook when there is one
  (``nbgrader submit`` writes it; read with nbgrader's own parser), else the file's modification time
  (inside a ``.zip``, the member's time, which :mod:`grader.batch.archive` keeps).

A time without an offset (``--due 2024-03-01T09:00``, an extension, a Blackboard name) is in the time zone
of the machine running ``grade`` (``$TZ``); write ``2024-03-01T09:00+01:00`` or ``...Z`` to say which.

The penalty is taken from the score of a graded row only (an ungradable row has no score to lower), never
below 0, and the raw score is kept beside it (:attr:`grader.batch.model.Row.final_score`).
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from grader.batch.lms_table import LMSES
from grader.batch.model import Lateness, Row
from grader.batch.names import same_id
from grader.errors import UsageError
from grader.files import write_atomic
from grader.text import num

#: Where a results folder keeps the late policy its last batch was given, so reruns and ``grade export`` apply it.
POLICY_FILE = "late-policy.json"
#: The penalty rules ``--late-penalty`` accepts.
PENALTY_FORMS = "none, per-day:<percent of the maximum per day or part of one>, zero"


@dataclass(frozen=True)
class Penalty:
    """``none``; ``per-day`` (``percent`` of the maximum off per day or part of a day late); ``zero``."""

    kind: str = "none"
    percent: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Penalty:
        kind, _, value = text.strip().partition(":")
        if kind in ("none", "zero") and not value:
            return cls(kind)
        if kind == "per-day":
            try:
                percent = float(value)
            except ValueError:
                percent = -1.0
            if 0 < percent <= 100:
                return cls(kind, percent)
        raise UsageError(f"--late-penalty {text!r} is not a rule; use one of: {PENALTY_FORMS}.")

    def __str__(self) -> str:
        return f"per-day:{num(self.percent)}" if self.kind == "per-day" else self.kind

    def points_off(self, days: int, max_score: float) -> float:
        if days <= 0 or self.kind == "none":
            return 0.0
        if self.kind == "zero":
            return max_score
        return max_score * self.percent / 100 * days


@dataclass(frozen=True)
class LatePolicy:
    """The due date, each extension (by learner id or LMS id) and the penalty rule; no due date: no policy."""

    due: datetime | None = None
    extensions: tuple[tuple[str, datetime], ...] = ()
    penalty: Penalty = Penalty()

    def due_for(self, row: Row) -> datetime | None:
        """The row's extension, on its learner id or LMS id as :func:`same_id` compares ids, else the due date."""
        return self.due_of(row.learner, row.identity.lms_id)

    def due_of(self, *keys: str) -> datetime | None:
        """The extension of the learner known by any of ``keys`` (learner id, LMS id), else the due date."""
        found = {same_id(who): when for who, when in self.extensions}
        for key in keys:
            if key and same_id(key) in found:
                return found[same_id(key)]
        return self.due


#: How a submission the LMS flagged late, with no time, from a learner with a later extension, was judged.
UNTIMED_EXTENDED = (
    "marked late by the LMS against the course's due date, with no time, and you have a later extension: "
    "not penalised (your teaching assistant checks the time in the LMS)"
)


def _extended(policy: LatePolicy, due: datetime) -> bool:
    """Whether ``due`` (a learner's) is an extension past the course's due date."""
    return policy.due is not None and due > policy.due


def extension_notes(policy: LatePolicy, rows: Sequence[Row]) -> tuple[str, ...]:
    """What the teaching assistant must check in ``--extensions``: a name that matches no learner of the batch
    (a typo leaves the real learner penalised), an extension earlier than the due date (a typo for a later
    one: it is applied as written, so that learner is counted late from it), and the learners with an extension
    whose LMS flagged them late without saying when (Canvas): never penalised past an extension, so a person
    must look up the time."""
    if policy.due is None:
        return ()
    untimed = [r.learner for r in rows if r.lateness is not None and r.lateness.how == UNTIMED_EXTENDED]
    known = {same_id(key) for r in rows for key in (r.learner, r.identity.lms_id) if key}
    nobody = [who for who, _ in policy.extensions if same_id(who) not in known]
    early = [f"{who} ({when.isoformat(timespec='minutes')})" for who, when in policy.extensions if when < policy.due]
    notes = []
    if nobody:
        notes.append(
            f"--extensions names {', '.join(nobody)}, who match no learner id or LMS id of this batch: their "
            "extension was applied to nobody; correct the name (see grades.csv) and run again"
        )
    if early:
        notes.append(
            f"--extensions gives {', '.join(early)} a due date earlier than --due "
            f"({policy.due.isoformat(timespec='minutes')}): applied as written, so counted late from it; "
            "if it is a typo, correct it and run again"
        )
    if untimed:
        notes.append(
            f"{', '.join(untimed)}: marked late by the LMS, which gives no time, and given a later extension: not "
            "penalised; look up when they handed in (Canvas: SpeedGrader) and adjust the grade there if it was "
            "after their extension"
        )
    return tuple(notes)


def iso_time(text: str) -> datetime:
    """``datetime.fromisoformat``, with the ``Z`` (UTC) that Python reads only from 3.11 on read on 3.10 too."""
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)


def parse_time(text: str, what: str) -> datetime:
    """An ISO 8601 time; one without an offset is in the local time zone (see the module's docstring)."""
    try:
        moment = iso_time(text.strip())
    except ValueError:
        raise UsageError(
            f"{what} {text!r} is not a date and time; write it as 2024-03-01T09:00 (local) or 2024-03-01T09:00+01:00."
        ) from None
    return moment if moment.tzinfo is not None else moment.astimezone()


def read_extensions(path: Path) -> tuple[tuple[str, datetime], ...]:
    """A CSV of ``learner,due`` rows (a header row is allowed): the learner id or LMS id, and their due date."""
    try:
        lines = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"--extensions {path}: cannot read it ({err}); give a UTF-8 CSV of learner,due.") from None
    found: list[tuple[str, datetime]] = []
    seen: dict[str, list[int]] = {}
    for number, cells in enumerate(lines, 1):
        if not cells or not "".join(cells).strip():
            continue
        if len(cells) != 2:
            raise UsageError(f"--extensions {path}, line {number}: expected two cells, learner and due date.")
        who, when = cells[0].strip(), cells[1].strip()
        if number == 1 and not re.match(r"\d{4}-", when):
            continue  # a header row
        if not who:
            raise UsageError(f"--extensions {path}, line {number}: the learner cell is empty; give their id.")
        found.append((who, parse_time(when, f"--extensions {path}, line {number}:")))
        seen.setdefault(same_id(who), []).append(number)
    twice = [f"{who} (lines {', '.join(map(str, at))})" for who, at in seen.items() if len(at) > 1]
    if twice:
        raise UsageError(
            f"--extensions {path} lists a learner more than once: {'; '.join(twice)}; keep one row per learner."
        )
    return tuple(found)


def submitted_at(path: Path, name: str, lms: str) -> str:
    """When the notebook at ``path`` (``name``: its file name in the download) was handed in, ISO 8601 with its
    offset, as its layout says (see the module's docstring); empty when the layout carries no time."""
    rule = LMSES.get(lms)
    if rule is not None and rule.handed_in is not None:
        return rule.handed_in(name)
    stamp = path.parent / "timestamp.txt"
    if not lms and stamp.is_file():  # nbgrader's exchange writes it; in an LMS download a learner could
        parsed = _nbgrader_time(stamp)
        if parsed is not None:
            return parsed.isoformat()
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat()
    except OSError:
        return ""


def _nbgrader_time(stamp: Path) -> datetime | None:
    """nbgrader's ``timestamp.txt``, read as nbgrader reads it (``parse_utc``: naive UTC), else as ISO 8601."""
    try:
        text = stamp.read_text(encoding="utf-8", errors="replace").strip()[:100]
    except OSError:
        return None
    try:
        from nbgrader.utils import parse_utc

        return parse_utc(text).replace(tzinfo=timezone.utc)  # type: ignore[no-any-return]
    except ImportError:
        pass
    except Exception:  # nbgrader could not read it: the file's time is used instead
        return None
    try:
        moment = iso_time(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def lateness(row: Row, policy: LatePolicy) -> Lateness | None:
    """How late ``row`` was under ``policy`` and the points that cost; ``None`` without a due date."""
    due = policy.due_for(row)
    if due is None:
        return None
    if row.submitted:
        handed = iso_time(row.submitted)
        days = days_late(handed, due)
        how = "submitted " + handed.isoformat(timespec="minutes")
    elif row.late and _extended(policy, due):
        days = 0  # the flag is against the course's due date; whether it beat this learner's later one is unknown
        how = UNTIMED_EXTENDED
    else:
        days = 1 if row.late else 0  # Canvas's flag: late by one day at least, or on time
        how = "marked late by the LMS (it gives no time: counted as one day)" if row.late else "not marked late"
    gradable = row.status == "graded" and row.report is not None
    off = min(row.score, policy.penalty.points_off(days, row.max_score or 0.0)) if gradable else 0.0
    return Lateness(due.isoformat(timespec="minutes"), days, off, str(policy.penalty), how)


def days_late(handed: datetime, due: datetime) -> int:
    """Days late, each part of a day counting as one; 0 on time."""
    seconds = (handed - due).total_seconds()
    return math.ceil(seconds / 86400) if seconds > 0 else 0


def apply_late(rows: Sequence[Row], policy: LatePolicy) -> list[Row]:
    """``rows`` with their :class:`Lateness` under ``policy`` (and ``late`` set when it makes them late)."""
    out = []
    for row in rows:
        found = lateness(row, policy)
        out.append(replace(row, lateness=found, late=row.late or bool(found and found.days)))
    return out


def remember(out: Path, policy: LatePolicy | None) -> LatePolicy:
    """The policy to apply: ``policy`` when given (kept in ``RESULTS/late-policy.json`` for the next run and
    ``grade export``), else the one kept there, else none."""
    path = out / POLICY_FILE
    if policy is not None and policy.due is not None:
        body = {
            "due": policy.due.isoformat(),
            "extensions": [[who, when.isoformat()] for who, when in policy.extensions],
            "penalty": str(policy.penalty),
        }
        write_atomic(path, json.dumps(body, indent=1) + "\n")
        return policy
    if not path.is_file():
        return LatePolicy()
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        return LatePolicy(
            iso_time(body["due"]),
            tuple((who, iso_time(when)) for who, when in body["extensions"]),
            Penalty.parse(body["penalty"]),
        )
    except (ValueError, KeyError, TypeError) as err:
        raise UsageError(f"{path} is damaged ({err}); give --due again, or delete it for no late policy.") from None


def late_lines(rows: Iterable[Row]) -> list[Row]:
    """The rows the late policy made late, for the summary."""
    return [r for r in rows if r.lateness is not None and r.lateness.days > 0]
