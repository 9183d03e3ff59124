"""Batch grading for teaching assistants: ``grade batch SUBMISSIONS --out RESULTS``.

:func:`run_batch` grades a folder or archive of notebooks in parallel (local processes or any
``concurrent.futures`` executor, such as a Dask cluster's), records every result in an SQLite gradebook
as it arrives, and regenerates grades.csv, results.jsonl, per-learner feedback and a class summary from it.

Modules, one concern each: ``model`` is a row; ``lms_table`` holds every rule that differs by LMS (read by
the rest); ``layouts``/``names``/``archive`` find submissions and their learners, and
``choose`` reads each once and picks one notebook per learner;
``fingerprint`` and ``gradebook`` decide what to skip and keep results; ``work`` and ``dispatch`` grade;
``outputs`` writes what :mod:`grader.report` renders from the rows; ``run`` is the recipe.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BatchOptions", "BatchSummary", "run_batch"]


def __getattr__(name: str) -> Any:
    """Import the recipe on first use: the CLI and the grading processes import submodules without it."""
    if name in __all__:
        from grader.batch import run

        return getattr(run, name)
    raise AttributeError(f"module 'grader.batch' has no attribute {name!r}")
