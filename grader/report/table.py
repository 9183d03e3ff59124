"""The terminal table ``grade NOTEBOOK`` prints: one row per question with one line of feedback.

Every text that may hold the learner's words (ids, feedback, cell errors, the path) goes to rich as a
``Text`` of :func:`grader.text.plain` text, never as markup: ``[/]`` in an exception message prints as
written instead of crashing the table, and ``[link=...]``, ``[blink]`` or an escape sequence never reach
the terminal as anything but characters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.model import Report
from grader.params import is_integrity_flag
from grader.text import num, plain

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

_STYLE = {
    "passed": "green",
    "partial": "yellow",
    "failed": "red",
    "not-attempted": "dim",
    "missing": "red",
    "error": "red",
}


def _num(x: float) -> str:
    return num(x)  # two decimals at most, as the batch's pages write scores


def _text(text: str, style: str = "") -> Text:
    from rich.text import Text

    return Text(plain(text), style=style)


def print_report(report: Report, console: Console) -> None:
    from rich.table import Table
    from rich.text import Text

    flags = [line for line in report.errors if is_integrity_flag(line)]
    for line in flags:  # whose work this is: read before any answer's feedback, which it explains
        console.print(Text.assemble(("note:", "yellow"), " ", _text(line)))
    table = Table(title=_text(f"{report.path}  ({report.lesson})"), title_justify="left")
    table.add_column("question")
    table.add_column("score", justify="right")
    table.add_column("max", justify="right")
    table.add_column("feedback", overflow="fold")
    for q in report.questions:
        first = q.feedback[0] if q.feedback else ""
        table.add_row(_text(q.id), _text(_num(q.score), _STYLE.get(q.status, "")), _num(q.max_score), _text(first))
    console.print(table)
    for line in (e for e in report.errors if e not in flags):
        console.print(Text.assemble(("note:", "yellow"), " ", _text(line)))
    console.print(_text(f"Total: {_num(report.score)} / {_num(report.max_score)}", "bold"))
