"""Content hashes that decide whether a stored grade is still valid.

A grade depends on the submission (:attr:`grader.model.Submission.digest`, the hash of the file's bytes)
and on what it was graded against: the lesson's hidden suites, its ``lesson.toml`` and its solution
notebook (whose functions stand in behind the learner's), and on how it was graded
(:func:`grading_fingerprint`: the timeout and other limits, the isolation level, kernel mode, the grader's
version). If none of these changed, regrading would give the same result, so a rerun skips it.
"""

from __future__ import annotations

import hashlib
from dataclasses import fields
from pathlib import Path

from grader import __version__
from grader.config import Limits, WorkerMode
from grader.lessons import suites_fingerprint as suites_fingerprint  # where a lesson is loaded; a batch stores it

_CHUNK = 1 << 20


def file_digest(path: Path) -> str:
    """The same sha256 as :attr:`Submission.digest`, for files that could not be read as notebooks."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
    except OSError:
        return ""
    return h.hexdigest()


def grading_fingerprint(limits: Limits, mode: WorkerMode, suites_hash: str) -> dict[str, str]:
    """Every grading option that can change a score, by name, as the gradebook stores it beside each grading.

    A stored grade stays valid only while all of these are the same: the lesson (``suites_hash``), the
    grader's version, the isolation level actually used, real-kernel mode and every resource limit a
    learner's notebook runs under (a longer ``--timeout`` can turn a timeout into a score).
    """
    from grader.execute.runner import isolation_level  # cached per process: bubblewrap is tried once

    return {
        "lesson": suites_hash,
        "grader": __version__,
        "isolation": isolation_level(mode),
        "kernel": "on" if mode.kernel else "off",
        **{f.name: f"{getattr(limits, f.name):g}" for f in fields(limits) if f.name in _SCORED_LIMITS},
    }


#: The limits a notebook runs under that can change its score (the rest only bound what is kept of it).
_SCORED_LIMITS = (
    "timeout",
    "call_timeout",
    "boot_timeout",
    "memory_mb",
    "max_processes",
    "max_file_mb",
    "max_open_files",
    "max_message_kb",
    "tmpfs_mb",
)
