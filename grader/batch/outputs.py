"""Write the results folder from the gradebook's rows: grades.csv, results.jsonl, feedback/, summary.html.

Every file is written to a temporary name and moved into place (``os.replace``), so a reader, or a batch
killed mid-write, never sees half a file, and a write that fails leaves no temporary file. All of them are
regenerated at the end of every run. Learner text reaches each file through :mod:`grader.text`; a CSV cell
that would start a spreadsheet formula is made text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from grader.batch.lms import grades_csv as lms_grades_csv
from grader.batch.model import Row
from grader.batch.names import is_safe_id
from grader.config import FeedbackMode
from grader.files import write_all_atomic
from grader.model import Lesson
from grader.report.class_report import Pair, class_report, integrity_html, report_html, report_json
from grader.report.feedback import feedback_html, feedback_markdown, feedback_view
from grader.report.rows import row_to_dict
from grader.report.summary import summary_html
from grader.text import plain

GRADES = "grades.csv"
RESULTS = "results.jsonl"
FEEDBACK = "feedback"
SUMMARY = "summary.html"
SUMMARY_JSON = "summary.json"


def write_outputs(
    out: Path, rows: Sequence[Row], lessons: Mapping[str, Lesson], mode: FeedbackMode, similar: Sequence[Pair] = ()
) -> tuple[str, ...]:
    """Write every output; return a note for each learner whose feedback page could not be named safely.

    Every file is written (and flushed to the disk) together (:func:`grader.files.write_all_atomic`)."""
    files: list[tuple[Path, str]] = [
        (out / GRADES, grades_csv(rows)),
        (out / RESULTS, "".join(json.dumps(row_to_dict(r)) + "\n" for r in rows)),
    ]
    folder = out / FEEDBACK
    folder.mkdir(exist_ok=True)
    keep = set()
    notes: list[str] = []
    for row in rows:
        pages = {suffix: feedback_path(folder, row.learner, suffix) for suffix in (".html", ".md")}
        if None in pages.values():
            notes.append(f"no feedback page for {plain(row.learner, 120)!r}: its id is not a safe file name")
            continue
        view = feedback_view(row, lessons.get(row.lesson or ""), mode)
        for suffix, text in ((".html", feedback_html(view)), (".md", feedback_markdown(view))):
            page = pages[suffix]
            assert page is not None
            files.append((page, text))
            keep.add(page.name)
    report = class_report(rows, similar)
    files.append((out / SUMMARY_JSON, report_json(report)))
    files.append((out / SUMMARY, summary_html(rows, lessons, report_html(report), integrity_html(report))))
    write_all_atomic(files)
    for stale in folder.iterdir():  # learners no longer among the submissions
        if stale.suffix in (".html", ".md") and stale.name not in keep:
            stale.unlink()
    return tuple(notes)


def feedback_path(folder: Path, learner: str, suffix: str) -> Path | None:
    """``folder/<learner><suffix>``, if that is a safe file name directly inside ``folder`` (else None).

    Learner ids are made safe (:func:`grader.batch.names.safe_id`) and checked when read back from the
    gradebook; this is the last check, where the file is named: no id can write outside the results folder.
    """
    name = f"{learner}{suffix}"
    if not is_safe_id(learner) or Path(name).name != name or len(name.encode()) > 255:
        return None
    path = folder / name
    return path if os.path.realpath(path.parent) == os.path.realpath(folder) else None


def grades_csv(rows: Sequence[Row]) -> str:
    """learner, name, lms, lms_id, score, max_score, late, status, reason, then one column per question id
    (see :func:`grader.batch.lms.grades_csv`: the same layout is ``grade export --to csv``)."""
    return lms_grades_csv(rows)
