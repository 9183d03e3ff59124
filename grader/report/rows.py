"""A batch's row as a line of ``results.jsonl`` (:mod:`grader.batch.model` holds the row itself), and back."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from grader.batch.model import Identity, Row
from grader.report import report_from_dict, report_to_dict, ungraded_to_dict
from grader.text import for_json


def row_to_dict(row: Row) -> dict[str, Any]:
    """A line of ``results.jsonl``: the object ``grade --json`` prints in the teaching assistant's view (expected values
    kept, ``learner_feedback`` what the learner was shown), plus the learner id, their LMS identity (``lms``,
    ``lms_id``, ``name``) and the LMS's late flag."""
    body = report_to_dict(row.report, staff=True) if row.report else ungraded_to_dict(row.path, row.reason, row.status)
    who = {"lms": row.identity.lms, "lms_id": row.identity.lms_id, "name": row.identity.name}
    if row.identity.roster:
        who["roster"] = row.identity.roster
    line: dict[str, Any] = {"learner": row.learner, "late": row.late, **who, **body}
    if row.submitted:
        line["submitted"] = row.submitted
    if row.lateness is not None:  # the raw score stays in "score"
        line["lateness"] = {**asdict(row.lateness), "final_score": row.final_score}
    return for_json(line)


def row_from_dict(data: dict[str, Any], digest: str = "") -> Row:
    """The inverse of :func:`row_to_dict`; ``digest`` is the submission's hash, which the JSON leaves out."""
    identity = Identity(data.get("lms", ""), data.get("lms_id", ""), data.get("name", ""), data.get("roster", ""))
    if "lesson" in data:
        row = Row.of(data["learner"], report_from_dict(data, digest), bool(data.get("late")))
        return replace(row, identity=identity, submitted=str(data.get("submitted") or ""))
    reason = data["errors"][0] if data["errors"] else ""
    late = bool(data.get("late"))
    return Row(
        data["learner"], data["path"], data["status"], reason, None, late, identity, str(data.get("submitted") or "")
    )
