"""Release a lesson with learner parameters: one learner notebook per learner of a roster, each on their own numbers.

``grade build exercises/decode --roster roster.csv --out released`` reads the roster (a CSV file with a
``learner`` column, the learner id a batch will know them by, and an optional ``identity`` column, their LMS
identity, which the numbers are drawn from when given) and writes ``released/<learner>/<notebook>.ipynb`` for
each row: the lesson's learner notebook with that learner's numbers in its text, their id and a display copy
of their numbers in its metadata, and the self-check setup cell told the same numbers. The numbers are drawn
by :func:`grader.params.draw` from the identity and the course secret, so a rerun gives every learner the
same notebook, and grading recomputes them rather than trusting the copy.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from grader.authoring.build import Owner, build_notebooks, notebook_text, read_source
from grader.batch.names import safe_id
from grader.errors import UsageError
from grader.files import write_atomic
from grader.model import Lesson
from grader.params import draw, identity_of, require_secret
from grader.service import tokens
from grader.service.client import is_service_url
from grader.service.protocol import ServiceMetadata

#: A learner id a roster may hold: a safe file name (it names the learner's folder) that a batch keeps as it is.
_SAFE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class RosterRow:
    learner: str
    """The learner id a batch knows them by (a flat folder's file stem, nbgrader's student id)."""
    identity: str
    """What their numbers are drawn from: the LMS identity when the roster gives one, else the learner id."""


def read_roster(path: Path) -> list[RosterRow]:
    """The roster's rows; :class:`UsageError` names the line and what to write when one is not usable."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"The roster {path} cannot be read ({err}); give a UTF-8 CSV file.") from None
    reader = csv.DictReader(text.splitlines())
    columns = [c.strip() for c in reader.fieldnames or []]
    if "learner" not in columns:
        raise UsageError(f"The roster {path} needs a header line with a `learner` column (and optionally `identity`).")
    rows: list[RosterRow] = []
    seen: set[str] = set()
    for line, raw in enumerate(reader, 2):
        row = {str(k).strip(): (v or "").strip() for k, v in raw.items() if k is not None}
        learner = row.get("learner", "")
        if not _SAFE_ID.match(learner) or safe_id(learner) != learner:
            raise UsageError(
                f"{path}, line {line}: the learner id {learner[:60]!r} must be letters, digits, '.', '_' or '-', "
                "as a batch knows them (it names the learner's folder, and a batch would draw another learner's "
                "numbers from what it makes of it); put an e-mail address in the `identity` column."
            )
        if learner in seen:
            raise UsageError(f"{path}, line {line}: the learner id {learner!r} is listed twice.")
        seen.add(learner)
        rows.append(RosterRow(learner, identity_of(learner, row.get("identity", ""))))
    if not rows:
        raise UsageError(f"The roster {path} lists no learners.")
    return rows


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
