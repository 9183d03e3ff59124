"""Write the results folder from the gradebook's rows: grades.csv, results.jsonl, feedback/, summary.html.

Every file is written to a temporary name and moved into place (``os.replace``), so a reader, or a batch
killed mid-write, never sees half a file, and a write that fails leaves no temporary file. All of them are
regenerated at the end of every run. Learner text reaches each file through :mod:`grader.text`; a CSV cell
that would start a spreadsheet formula is made text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.batch.class_report import class_report, report_html, report_json
from grader.batch.feedback import feedback_html, feedback_markdown, feedback_view
from grader.batch.lms import grades_csv as lms_grades_csv
from grader.batch.rows import Row, row_to_dict
from grader.batch.similar import Pair
from grader.batch.summary import summary_html
from grader.config import FeedbackMode
from grader.files import write_atomic
from grader.model import Lesson

GRADES = "grades.csv"
RESULTS = "results.jsonl"
FEEDBACK = "feedback"
SUMMARY = "summary.html"
SUMMARY_JSON = "summary.json"


def write_outputs(
    out: Path, rows: Sequence[Row], lessons: Mapping[str, Lesson], mode: FeedbackMode, similar: Sequence[Pair] = ()
) -> None:
    write_atomic(out / GRADES, grades_csv(rows))
    write_atomic(out / RESULTS, "".join(json.dumps(row_to_dict(r)) + "\n" for r in rows))
    folder = out / FEEDBACK
    folder.mkdir(exist_ok=True)
    keep = set()
    for row in rows:
        view = feedback_view(row, lessons.get(row.lesson or ""), mode)
        for suffix, text in ((".html", feedback_html(view)), (".md", feedback_markdown(view))):
            write_atomic(folder / f"{row.learner}{suffix}", text)
            keep.add(f"{row.learner}{suffix}")
    for stale in folder.iterdir():  # learners no longer among the submissions
        if stale.suffix in (".html", ".md") and stale.name not in keep:
            stale.unlink()
    report = class_report(rows, similar)
    write_atomic(out / SUMMARY_JSON, report_json(report))
    write_atomic(out / SUMMARY, summary_html(rows, lessons, report_html(report)))


def grades_csv(rows: Sequence[Row]) -> str:
    """learner, name, lms, lms_id, score, max_score, late, status, reason, then one column per question id
    (see :func:`grader.batch.lms.grades_csv`: the same layout is ``grade export --to csv``)."""
    return lms_grades_csv(rows)
