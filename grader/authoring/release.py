"""Release a lesson with learner parameters: one learner notebook per learner of a roster, each on their own numbers.

``grade build exercises/decode --roster roster.csv --out released`` reads the course roster
(:mod:`grader.batch.roster`: a ``learner`` column, the learner id a batch will know them by, and an optional
``identity`` column, which the numbers are drawn from when given) and writes ``released/<learner>/<notebook>.ipynb`` for
each row: the lesson's learner notebook with that learner's numbers in its text, their id and a display copy
of their numbers in its metadata, and the self-check setup cell told the same numbers. The numbers are drawn
by :func:`grader.params.draw` from the identity and the course secret, so a rerun gives every learner the
same notebook, and grading recomputes them rather than trusting the copy.
"""

from __future__ import annotations

from pathlib import Path

from grader.authoring.build import Owner, build_notebooks, notebook_text, read_source
from grader.batch.roster import RosterRow, read_roster
from grader.errors import UsageError
from grader.files import write_atomic
from grader.model import Lesson
from grader.params import draw, require_secret
from grader.service import tokens
from grader.service.client import is_service_url
from grader.service.protocol import ServiceMetadata

__all__ = ["RosterRow", "read_roster", "release"]


def release(
    lesson: Lesson, roster: Path, out: Path, lessons_root: Path, *, nbgrader: bool = False, service: str | None = None
) -> list[Path]:
    """Write each roster learner's notebook under ``out/<learner>/``; return the paths written.

    ``nbgrader``: each is the student's notebook as ``nbgrader generate_assignment`` would release it (the nbgrader
    source on their numbers, through nbgrader's own release steps): with its autograder test cells and nbgrader's
    cell metadata, which ``nbgrader autograde`` needs. The plain learner notebook has neither: autograded, it
    scores 0 on every question, since nbgrader does not add missing test cells back by default.

    ``service``: the course service's address (``grade serve``). Each notebook then checks and hands in through
    it: its setup cell and metadata carry the address and the learner's own token (:func:`tokens.issue`, from
    the course secret), its hints are written into the setup cell, and it needs no lesson on the learner's disk."""
    if service is not None and nbgrader:
        raise UsageError("--service and --nbgrader do not go together: an nbgrader course grades with nbgrader.")
    if service is not None and not is_service_url(service):
        raise UsageError(f"--service {service!r} is not an http:// or https:// address of a course service.")
    rows = read_roster(roster)
    secret = require_secret(lesson, lessons_root) if lesson.params or service is not None else b""
    src = read_source(lesson)
    written: list[Path] = []
    for row in rows:
        params = draw(lesson, row.identity, secret) if lesson.params else ()
        connected = None
        if service is not None:
            connected = ServiceMetadata(url=service.rstrip("/"), token=tokens.issue(secret, row.learner, lesson.id))
        built = build_notebooks(src, Owner(row.learner, params, connected))
        notebook = built.learner
        if nbgrader:
            from grader.integrations.nbgrader import released_form

            notebook = released_form(built.nbgrader)
        path = out / row.learner / lesson.notebook.name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, notebook_text(notebook))
        written.append(path)
    return written
