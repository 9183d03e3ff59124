"""Files written whole or not at all: a reader (a teacher's browser, an LMS import, Gradescope) never sees half
of one, and a failed write leaves no temporary file behind."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` to write to; moved onto ``path`` (``os.replace``) when the block ends,
    deleted if it raises."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is either the old one or the whole new one.

    Always valid UTF-8: a character that cannot be encoded (which :mod:`grader.text` already replaced) is
    written as ``?`` rather than failing the caller.
    """
    with atomic_path(path) as temporary:
        with open(temporary, "w", encoding="utf-8", errors="replace", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
