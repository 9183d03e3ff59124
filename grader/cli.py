"""The ``grade`` command: parse arguments, call the library, map errors to messages and exit codes.

Exit status: 0 when a notebook was graded (whatever its score); 1 when it could not be (an unreadable
notebook, a broken lesson); 2 for bad usage. Heavy imports happen inside the commands, so ``--help`` is fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from grader import __version__
from grader.config import DEFAULT_LIMITS

EXIT_UNGRADED = 1


class _Grade(click.Group):
    """``grade NOTEBOOK`` is short for ``grade notebook NOTEBOOK``; other words name subcommands."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["notebook", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_Grade, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="grade")
def main() -> None:
    """Grade LLM-inference course notebooks against hidden tests.

    \b
    Examples:
      grade my_notebook.ipynb            a table of scores and feedback
      grade my_notebook.ipynb --json     the same as one JSON object
    """


@main.command("notebook")
@click.argument("notebook", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@click.option("--lesson", help="Lesson id (default: read from the notebook's metadata).")
@click.option("--suites", type=click.Path(path_type=Path, file_okay=False, exists=True), help="Use a private copy of the hidden suites.")
@click.option("--lessons", "lessons_root", type=click.Path(path_type=Path, file_okay=False, exists=True), help="Folder of lesson definitions (default: the bundled exercises/).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=DEFAULT_LIMITS.timeout, show_default=True, help="Seconds the notebook may run before it is stopped.")
def notebook_command(notebook: Path, as_json: bool, lesson: str | None, suites: Path | None, lessons_root: Path | None, timeout: float) -> None:
    """Grade one notebook and print its score per question."""
    from dataclasses import replace

    from grader.errors import GraderError, UsageError
    from grader.pipeline import GradeOptions, grade_notebook
    from grader.report import print_report, report_to_dict

    options = GradeOptions(lesson=lesson, suites=suites, lessons_root=lessons_root, limits=replace(DEFAULT_LIMITS, timeout=timeout))
    try:
        report = grade_notebook(notebook, options)
    except UsageError as err:
        raise click.UsageError(str(err)) from None
    except GraderError as err:
        _fail(str(err), as_json, notebook)
        return
    if as_json:
        click.echo(json.dumps(report_to_dict(report)))
    else:
        from rich.console import Console

        print_report(report, Console())


def _fail(reason: str, as_json: bool, path: Path) -> None:
    """Report a notebook that could not be graded: one line on stderr, and a JSON object if asked."""
    click.echo(f"grade: {reason}", err=True)
    if as_json:
        payload: dict[str, Any] = {"path": str(path), "score": 0, "max_score": None, "status": "ungraded", "questions": [], "errors": [reason]}
        click.echo(json.dumps(payload))
    sys.exit(EXIT_UNGRADED)


if __name__ == "__main__":  # pragma: no cover
    main()
