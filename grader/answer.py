"""Grade one notebook and render what ``grade NOTEBOOK`` prints: the same code for the cold and warm paths.

The cold path (:func:`answer_cold`, in the ``grade`` process) and the daemon (:mod:`grader.serve.daemon`)
differ only in the function that grades; both render through :func:`render` for the learner's terminal, so
a learner cannot tell them apart by their output.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

from grader.config import EXIT_UNGRADED, lessons_root
from grader.errors import GraderError, UsageError
from grader.execute.upkeep import own_notebook_line
from grader.grader import grade_notebook
from grader.model import Report
from grader.pipeline import GradeOptions
from grader.serve.protocol import Answer, NotebookRequest
from grader.text import plain

Grade = Callable[[Path, Path, GradeOptions], Report]
"""Grades ``(notebook as given, notebook to read, options)``; raises :class:`GraderError` when it cannot."""


def _path(value: str | None) -> Path | None:
    return None if value is None else Path(value)


def options_for(request: NotebookRequest) -> GradeOptions:
    """The request's grading options; the lessons, when it names none, are those found from its folder (as a cold
    ``grade`` there finds them: :func:`grader.config.lessons_root`), else :class:`UsageError`."""
    lessons = _path(request.lessons_root) or lessons_root(Path(request.cwd))
    return GradeOptions.of(request.lesson, _path(request.suites), lessons, request.timeout, request.kernel)


def answer(request: NotebookRequest, grade: Grade) -> Answer:
    """Grade the request's notebook with ``grade`` and render the result; :class:`UsageError` propagates."""
    given = Path(request.notebook)
    options = options_for(request)
    try:
        report = grade(given, Path(request.cwd) / given, options)
    except UsageError:
        raise
    except GraderError as err:
        return failed(str(err), request)
    rendered = render(report, request)
    line = own_notebook_line(options.mode)  # one's own notebook may run without a sandbox: said
    return rendered._replace(stderr=rendered.stderr + (f"{line}\n" if line else ""))


def answer_cold(request: NotebookRequest) -> Answer:
    """The cold path: grade in this process (whose folder is ``request.cwd``), spawning one worker."""
    return answer(request, lambda given, _path, options: grade_notebook(given, options))


def render(report: Report, request: NotebookRequest) -> Answer:
    from grader.report import report_to_dict

    if request.as_json:
        return Answer(json.dumps(report_to_dict(report)) + "\n", "", 0)
    from rich.console import Console

    from grader.report import print_report

    out = io.StringIO()
    term = request.terminal
    console = Console(
        file=out, force_terminal=True if term.is_terminal else None, width=term.columns, _environ=term.env
    )
    print_report(report, console)
    return Answer(out.getvalue(), "", 0)


def failed(reason: str, request: NotebookRequest) -> Answer:
    """A notebook that could not be graded: one line on stderr, and a JSON object if asked."""
    from grader.report import ungraded_to_dict

    shown = str(Path(request.notebook))  # as the learner typed it, as a report shows it (``./a.ipynb`` is ``a.ipynb``)
    stdout = json.dumps(ungraded_to_dict(shown, reason)) + "\n" if request.as_json else ""
    return Answer(stdout, f"grade: {plain(reason)}\n", EXIT_UNGRADED)
