"""Every default the grader uses, defined once. The CLI's option defaults are read from here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Cells carrying this tag are for the learner's benefit (self-check calls, plots) and are not run when grading.
SKIP_TAG = "self-check"

#: Relative tolerance for comparing numbers in hidden tests (documented in the README).
REL_TOL = 1e-6


@dataclass(frozen=True)
class Limits:
    """Resource limits for the process that runs learner code."""

    timeout: float = 30.0
    """Wall-clock seconds for running the whole notebook."""
    call_timeout: float = 5.0
    """Wall-clock seconds for one call of a learner function from a hidden test."""
    memory_mb: int = 2048
    """Address-space limit of the worker."""
    max_processes: int = 64
    """Processes the worker may have at once (enforced for non-root users and inside a namespace)."""
    max_file_mb: int = 16
    """Largest file the worker may write."""
    max_open_files: int = 256
    output_kb: int = 64
    """Learner output kept for the report; the rest is read and thrown away."""
    max_message_kb: int = 1024
    """Largest single value a learner function may send back across the channel."""


DEFAULT_LIMITS = Limits()


def lessons_root() -> Path:
    """Where lesson definitions live: ``$GRADER_LESSONS`` or the ``exercises/`` folder beside the package."""
    env = os.environ.get("GRADER_LESSONS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "exercises"
