"""The reference namespace: the solution notebook's answers, executed in the trusted process.

Suites compare against it and stand it in for lesson functions the learner did not write or got wrong.
It is instructor code, so running it here is safe; self-check cells are skipped as the grader skips them.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from grader.errors import LessonError
from grader.read import read_submission


def load_reference(solution: Path) -> SimpleNamespace:
    submission = read_submission(solution)
    namespace: dict[str, object] = {"__name__": "reference"}
    for cell in submission.cells:
        if cell.skip or not cell.source.strip():
            continue
        try:
            exec(compile(cell.source, f"{solution.name}[cell {cell.index + 1}]", "exec"), namespace)
        except Exception as err:
            raise LessonError(f"The solution notebook {solution} fails in cell {cell.index + 1}: {err!r}.") from err
    namespace.pop("__builtins__", None)
    return SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("__")})
