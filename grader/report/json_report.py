"""The JSON form of a report: what ``grade --json`` prints and ``results.jsonl`` holds (schema in the README).

Every string is :func:`grader.text.plain` (valid UTF-8, no control characters, bounded), so any JSON writer,
strict or not, can write it, and any reader can read it.
"""

from __future__ import annotations

from typing import Any

from grader.model import QuestionResult, Report
from grader.params import as_dict, from_mapping
from grader.text import for_json


def report_to_dict(report: Report, *, staff: bool = False) -> dict[str, Any]:
    """``staff``: the teaching assistant's object (results.jsonl, the gradebook): ``feedback`` with the expected
    values, and ``learner_feedback``, what the learner was shown. Otherwise the learner's (``grade --json``)."""
    return for_json(
        {
            "lesson": report.lesson,
            "path": report.path,
            "score": report.score,
            "max_score": report.max_score,
            "status": report.status,
            "questions": [_question(q, staff) for q in report.questions],
            "errors": list(report.errors),
            "isolation": report.isolation,
            # the teaching assistant's object keeps the numbers graded on (a feedback page fills hints with them)
            **({"params": as_dict(report.params)} if staff and report.params else {}),
        }
    )


def _question(q: QuestionResult, staff: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id, "score": q.score, "max_score": q.max_score, "status": q.status}
    out["feedback"] = list(q.staff if staff else q.feedback)
    if staff:
        out["learner_feedback"] = list(q.feedback)
    return out


def report_from_dict(data: dict[str, Any], digest: str = "") -> Report:
    """The inverse of :func:`report_to_dict` (which leaves out the submission's ``digest``), so stored results
    can be rendered again without regrading."""
    return Report(
        lesson=data["lesson"],
        path=data["path"],
        score=float(data["score"]),
        max_score=float(data["max_score"]),
        questions=tuple(_question_from(q) for q in data["questions"]),
        errors=tuple(data["errors"]),
        isolation=data.get("isolation", ""),
        digest=digest,
        status=data.get("status", "graded"),
        params=from_mapping(data.get("params")),
    )


def _question_from(q: dict[str, Any]) -> QuestionResult:
    """A question of either object: a staff one carries both views, a learner one only the learner's."""
    if "learner_feedback" not in q:
        return QuestionResult(q["id"], float(q["score"]), float(q["max_score"]), q["status"], tuple(q["feedback"]))
    learner, staff = tuple(q["learner_feedback"]), tuple(q["feedback"])
    return QuestionResult(
        q["id"], float(q["score"]), float(q["max_score"]), q["status"], learner, () if staff == learner else staff
    )


def ungraded_to_dict(path: str, reason: str, status: str = "ungraded") -> dict[str, Any]:
    """The JSON of a notebook that could not be graded at all (no lesson to score it against)."""
    return for_json(
        {"path": path, "score": 0, "max_score": None, "status": status, "questions": [], "errors": [reason]}
    )
