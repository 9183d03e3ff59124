"""Content hashes that decide whether a stored grade is still valid.

A grade depends on the submission (:attr:`grader.model.Submission.digest`, the hash of the file's bytes)
and on what it was graded against: the lesson's hidden suites, its ``lesson.toml`` and its solution
notebook (whose functions stand in behind the learner's). If neither hash changed, regrading would give
the same result, so a rerun skips it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from grader.model import Lesson

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


def suites_fingerprint(lesson: Lesson) -> str:
    """A hash of everything a lesson's grading depends on: its suites' files, its definition and its solution."""
    suite_files = sorted(p for p in lesson.suites.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    named = [(f"suites/{p.relative_to(lesson.suites).as_posix()}", p) for p in suite_files]
    named += [("lesson.toml", lesson.root / "lesson.toml"), ("solution", lesson.solution)]
    h = hashlib.sha256()
    for name, path in named:
        data = path.read_bytes() if path.is_file() else b""
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()
