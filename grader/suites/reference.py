"""The reference namespace: the solution notebook's answers, executed in the trusted process.

Suites compare against it and stand it in for lesson functions the learner did not write or got wrong.
It is instructor code, so running it here is safe; self-check cells are skipped as the grader skips them.

A process executes each solution notebook once (per version of the file): every later session of the same
lesson gets a fresh namespace object over the same, already executed, answers.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

from grader.errors import LessonError
from grader.model import Submission
from grader.read import read_submission

_cache: dict[tuple[Path, int, int], dict[str, object]] = {}
_read: dict[tuple[Path, int, int], Submission] = {}
_lock = threading.Lock()


def solution_submission(solution: Path) -> Submission:
    """The solution notebook as read (once per version of the file): what a lender's worker runs
    (:mod:`grader.execute.lender`), so that lent solution functions run where their cost is bounded."""
    try:
        stat = solution.stat()
        key: tuple[Path, int, int] | None = (solution.resolve(), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = None
    with _lock:
        found = _read.get(key) if key else None
        if found is None:
            found = read_submission(solution)
            if key:
                _read[key] = found
    return found


def load_reference(solution: Path) -> SimpleNamespace:
    try:
        stat = solution.stat()
        key: tuple[Path, int, int] | None = (solution.resolve(), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = None  # read_submission says what is wrong with the path
    with _lock:
        answers = _cache.get(key) if key else None
        if answers is None:
            answers = {k: v for k, v in solution_namespace(solution).items() if not k.startswith("__")}
            if key:
                _cache[key] = answers
    return SimpleNamespace(**answers)


def solution_namespace(solution: Path) -> dict[str, object]:
    """A fresh run of the solution notebook: the globals its functions look each other up in, so a stand-in
    put into it reaches them (as a learner's notebook namespace does), without touching the shared reference."""
    submission = read_submission(solution)
    namespace: dict[str, object] = {"__name__": "reference"}
    for cell in submission.cells:
        if cell.skip or not cell.source.strip():
            continue
        try:
            exec(compile(cell.source, f"{solution.name}[cell {cell.index + 1}]", "exec"), namespace)
        except Exception as err:
            raise LessonError(f"The solution notebook {solution} fails in cell {cell.index + 1}: {err!r}.") from err
    return namespace
