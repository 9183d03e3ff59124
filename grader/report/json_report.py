"""The JSON form of a report: what ``grade --json`` prints and ``results.jsonl`` holds (schema in the README)."""

from __future__ import annotations

from typing import Any

from grader.model import Report


def report_to_dict(report: Report) -> dict[str, Any]:
    return {
        "lesson": report.lesson,
        "path": report.path,
        "score": report.score,
        "max_score": report.max_score,
        "questions": [
            {"id": q.id, "score": q.score, "max_score": q.max_score, "status": q.status, "feedback": list(q.feedback)}
            for q in report.questions
        ],
        "errors": list(report.errors),
        "isolation": report.isolation,
    }
