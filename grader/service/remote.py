"""``grade NOTEBOOK`` and ``grade submit NOTEBOOK`` for a notebook released with the course service: the file's
code cells go to the service, which grades them as a batch would, or the file itself, which the service stores.

The notebook says where (``metadata.grader.service``: the service's address and the learner's token), so a
learner's machine needs no lesson; ``--service URL`` names another address for the same token.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from grader.errors import NotebookUnreadable, UsageError
from grader.model import Report, Submission
from grader.read import parse_submission, read_notebook_bytes
from grader.service.client import Service, lesson_of, metadata_of, report_of
from grader.service.protocol import Receipt


def _opened(path: Path, url: str | None) -> tuple[Service, str, Submission, Any]:
    """The service ``path`` reports to, its lesson, the file read as a submission, and its parsed JSON."""
    raw = read_notebook_bytes(path)
    submission = parse_submission(raw, path)  # the same checks and sentences as every grade
    notebook = json.loads(raw)
    meta, lesson = metadata_of(notebook), lesson_of(notebook) or submission.lesson_id
    if meta is None or lesson is None:
        raise UsageError(
            f"{path.name} carries no course service token (metadata.grader.service): it was not released with "
            "`grade build --roster R --service URL`; grade it with the lessons instead."
        )
    return Service(url or meta["url"], meta["token"]), lesson, submission, notebook


def carries_service(path: Path) -> bool:
    """Whether ``path`` is a notebook released with the course service (False for anything unreadable)."""
    try:
        return metadata_of(json.loads(read_notebook_bytes(path))) is not None
    except (NotebookUnreadable, ValueError):
        return False


def grade_remotely(path: Path, url: str | None = None) -> Report:
    """Every question of ``path``, graded by the course service on its code cells as a grade runs them."""
    service, lesson, submission, _ = _opened(path, url)
    cells = [cell.source for cell in submission.cells if not cell.skip]
    return report_of(service.check(lesson, [], cells), path)


def submit_file(path: Path, url: str | None = None) -> Receipt:
    """Hand in ``path`` as it is on disk; the service's receipt."""
    service, lesson, _, notebook = _opened(path, url)
    return service.submit(lesson, notebook)
