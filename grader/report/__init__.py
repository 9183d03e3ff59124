"""Step 5, report: every rendering of grades, for people and programs.

One notebook's :class:`grader.model.Report` as a terminal table (``table``) and as JSON (``json_report``);
a class's rows (:mod:`grader.batch.model`: what the gradebook stores) as ``results.jsonl`` lines (``rows``),
feedback pages (``feedback``), ``summary.html`` (``summary``, ``charts``) and the class report
(``class_report``), HTML pages built with ``page`` and ``markup``. Nothing here writes a file or imports the
batch but its data model: ``batch/outputs.py`` writes what it renders.
"""

from grader.report.json_report import report_from_dict, report_to_dict, ungraded_to_dict
from grader.report.table import print_report

__all__ = ["report_from_dict", "report_to_dict", "ungraded_to_dict", "print_report"]
