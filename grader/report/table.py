"""The terminal table ``grade NOTEBOOK`` prints: one row per question with one line of feedback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grader.model import Report

if TYPE_CHECKING:
    from rich.console import Console

_STYLE = {"passed": "green", "partial": "yellow", "failed": "red", "not-attempted": "dim", "missing": "red", "error": "red"}


def _num(x: float) -> str:
    return f"{x:g}"


def print_report(report: Report, console: "Console") -> None:
    from rich.table import Table

    table = Table(title=f"{report.path}  ({report.lesson})", title_justify="left")
    table.add_column("question")
    table.add_column("score", justify="right")
    table.add_column("max", justify="right")
    table.add_column("feedback", overflow="fold")
    for q in report.questions:
        style = _STYLE.get(q.status, "")
        first = q.feedback[0] if q.feedback else ""
        table.add_row(q.id, f"[{style}]{_num(q.score)}[/]", _num(q.max_score), first)
    console.print(table)
    for line in report.errors:
        console.print(f"[yellow]note:[/] {line}", highlight=False)
    console.print(f"[bold]Total: {_num(report.score)} / {_num(report.max_score)}[/]", highlight=False)
