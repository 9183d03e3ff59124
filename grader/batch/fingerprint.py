"""Content hashes that decide whether a stored grade is still valid.

A grade depends on the submission (:attr:`grader.model.Submission.digest`, the hash of the file's bytes) and on
what it was graded against: the lesson's hidden suites, its ``lesson.toml`` and its solution notebook (whose
functions stand in behind the learner's), and on how it was graded (:func:`grading_fingerprint`: the timeout and
every other limit that can change a score, the isolation level, kernel mode, the hash of the grader's code;
:mod:`grader.staleness` defines them). If none of these changed, regrading would give the same result, so a
rerun skips it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from grader.lessons import suites_fingerprint as suites_fingerprint  # where a lesson is loaded; a batch stores it
from grader.staleness import fingerprint

if TYPE_CHECKING:
    from grader.pipeline import GradeOptions

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


def grading_fingerprint(options: GradeOptions, suites_hash: str) -> dict[str, str]:
    """Every grading option that can change a score, by name, as the gradebook stores it beside each grading.

    :func:`grader.staleness.fingerprint` (the one definition, the daemon's too) with the isolation level this
    machine actually uses: a stored grade stays valid only while the lesson (``suites_hash``), the grader's code
    and every score-changing limit and mode are the same (a longer ``--timeout`` can turn a timeout into a score).
    """
    from grader.execute.upkeep import isolation_level  # cached per process: bubblewrap is tried once

    return fingerprint(options, suites_hash, isolation_level(options.mode))
