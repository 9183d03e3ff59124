"""The JSON form of a report: what ``grade --json`` prints and ``results.jsonl`` holds (schema in the README).

Every string is :func:`grader.text.plain` (valid UTF-8, no control characters, bounded), so any JSON writer,
strict or not, can write it, and any reader can read it.
"""

from __future__ import annotations

from typing import Any

from grader.model import QuestionResult, Report
from grader.text import for_json


def report_to_dict(report: Report) -> dict[str, Any]:
    return for_json({
        "lesson": report.lesson,
        "path": report.path,
        "score": report.score,
        "max_score": report.max_score,
        "status": report.status,
        "questions": [
            {"id": q.id, "score": q.score, "max_score": q.max_score, "status": q.status, "feedback": list(q.feedback)}
            for q in report.questions
        ],
        "errors": list(report.errors),
        "isolation": report.isolation,
    })


def report_from_dict(data: dict[str, Any], digest: str = "") -> Report:
    """The inverse of :func:`report_to_dict` (which leaves out the submission's ``digest``), so stored results
    can be rendered again without regrading."""
    return Report(
        lesson=data["lesson"],
        path=data["path"],
        score=float(data["score"]),
        max_score=float(data["max_score"]),
        questions=tuple(
            QuestionResult(q["id"], float(q["score"]), float(q["max_score"]), q["status"], tuple(q["feedback"]))
            for q in data["questions"]
        ),
        errors=tuple(data["errors"]),
        isolation=data.get("isolation", ""),
        digest=digest,
        status=data.get("status", "graded"),
    )


def ungraded_to_dict(path: str, reason: str, status: str = "ungraded") -> dict[str, Any]:
    """The JSON of a notebook that could not be graded at all (no lesson to score it against)."""
    return for_json({"path": path, "score": 0, "max_score": None, "status": status, "questions": [], "errors": [reason]})
