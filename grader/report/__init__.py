"""Step 5, report: render a :class:`grader.model.Report` for people (a table) and programs (JSON)."""

from grader.report.json_report import report_from_dict, report_to_dict, ungraded_to_dict
from grader.report.table import print_report

__all__ = ["report_from_dict", "report_to_dict", "ungraded_to_dict", "print_report"]
