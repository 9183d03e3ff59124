"""A batch's data model: one learner's row (who they are to their LMS, how late, their latest grading) and what a
run gives back. The gradebook stores rows, the late policy and the LMS imports read them, and every output file
is rendered from them (:mod:`grader.report`, which is why this module sits with the steps, below the batch's
other modules, in docs/ARCHITECTURE.md's layers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.model import Report, ReportStatus
from grader.params import is_integrity_flag

#: Every status a row can have, in the order summaries list them.
STATUSES: tuple[ReportStatus, ...] = ("graded", "timed-out", "crashed", "unreadable")


@dataclass(frozen=True)
class Identity:
    """Who a learner is to their LMS, kept apart from the learner id (which must be a unique, safe file name).

    ``name`` is the display name the file name carries (Canvas: ``lovelaceada``; Moodle: ``Ada Lovelace``),
    ``lms_id`` the LMS's own key for the learner (Canvas user id, Moodle participant id, Blackboard username);
    an LMS import file is keyed on ``lms_id``, never on the display name.
    """

    lms: str = ""
    """``Canvas``, ``Moodle``, ``Blackboard``; empty when the file name named no LMS (a flat folder, nbgrader)."""
    lms_id: str = ""
    name: str = ""
    roster: str = ""
    """The learner's id on the course roster the batch was given (:mod:`grader.batch.roster`), empty without one:
    the same in every lesson and LMS, so a chapter joins on it (Moodle's ids are per assignment)."""


@dataclass(frozen=True)
class Lateness:
    """What the late policy (:mod:`grader.batch.late`) made of a row: derived when outputs are written, never stored."""

    due: str
    """The learner's due date (their extension's, if any), ISO 8601."""
    days: int
    """Days, or parts of a day, after the due date it was handed in (0: on time)."""
    points_off: float
    """What the penalty took from the score (0 for an ungradable row; never more than the score)."""
    rule: str
    how: str
    """How the submission time was known: ``submitted 2024-03-02T10:00+00:00``, or the LMS's late flag."""


@dataclass(frozen=True)
class Row:
    """A learner's latest grading. ``report`` is ``None`` only when no lesson could be found to score it against."""

    learner: str
    path: str
    status: ReportStatus
    reason: str = ""
    """Why the notebook was not graded normally (empty for ``graded``). A row whose status is not ``graded``
    has no grade an LMS should import: exports leave it blank unless ``BatchOptions.ungradable`` is
    ``zero``."""
    report: Report | None = None
    late: bool = False
    identity: Identity = Identity()
    """Who the learner is to their LMS (kept apart from ``learner``): what an LMS import file is keyed on."""
    submitted: str = ""
    """When it was handed in, ISO 8601 with its offset, as the layout says (:func:`grader.batch.late.submitted_at`);
    empty when the layout carries no time (Canvas: the late flag only)."""
    lateness: Lateness | None = None
    """The late policy's verdict (:func:`grader.batch.late.apply_late`); ``None`` without a due date."""

    @classmethod
    def of(cls, learner: str, report: Report, late: bool = False) -> Row:
        reason = report.errors[-1] if report.status != "graded" and report.errors else ""
        return cls(learner, report.path, report.status, reason, report, late)

    @property
    def score(self) -> float:
        return self.report.score if self.report else 0.0

    @property
    def final_score(self) -> float:
        """The score after any late penalty, never below 0 (``score`` stays the raw one)."""
        return max(0.0, self.score - (self.lateness.points_off if self.lateness else 0.0))

    @property
    def max_score(self) -> float | None:
        return self.report.max_score if self.report else None

    @property
    def lesson(self) -> str | None:
        return self.report.lesson if self.report else None


@dataclass(frozen=True)
class BatchSummary:
    """What a batch run gives back: every row, and how many of them this run graded."""

    out: Path
    layout: str
    rows: tuple[Row, ...]
    """Every submission's row (its latest grading), in the order the outputs list them."""
    graded: int
    """Submissions graded (or found unreadable) by this run; the others were unchanged and kept."""
    skipped: int
    seconds: float
    notes: tuple[str, ...] = ()


def integrity_flags(row: Row) -> tuple[str, ...]:
    """The row's integrity flags (:func:`grader.params.is_integrity_flag`): its notebook was released to someone
    else, or its answers are right only for another learner's numbers. Shown in their own sections, and such a
    notebook's answers are no evidence of what the class misunderstood."""
    return tuple(e for e in row.report.errors if is_integrity_flag(e)) if row.report else ()


def row_reason(row: Row) -> str:
    """Why the learner has fewer points than their answers might earn: the row's reason, or, when they lost
    points, the errors that can explain it: cells that raised (``ModuleNotFoundError: torch``) and questions
    that could not be checked (a call that never returned)."""
    return _reason(row, flags=True)


def error_reason(row: Row) -> str:
    """:func:`row_reason` without the integrity flags: what went wrong while the notebook ran, if anything."""
    return _reason(row, flags=False)


def _reason(row: Row, flags: bool) -> str:
    if row.reason or row.report is None:
        return row.reason
    if row.report.score >= row.report.max_score:
        return ""
    errors = [e for e in row.report.errors if flags or not is_integrity_flag(e)]
    unchecked = [f"{q.id}: {q.feedback[0]}" for q in row.report.questions if q.status == "error" and q.feedback]
    return "; ".join([*errors, *unchecked])
