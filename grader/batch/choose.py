"""One row per learner: read each of a learner's notebooks once, and choose the one to grade.

A learner may send several notebooks (a scratch copy beside the real one, a resubmission the LMS kept
too). Every LMS keeps one grade per learner, so a batch grades one notebook per learner, by a stated rule:

1. only notebooks that can be read, and whose metadata does not name another lesson, can be chosen;
2. of those, the ones whose metadata names the batch's lesson, if any do;
3. of those, the ones named like the lesson's notebook (``decode.ipynb``, ``..._decode.ipynb``,
   ``decode-1.ipynb``), if any are;
4. if exactly one is left, it is graded; otherwise the learner is refused (an ``unreadable`` row whose
   reason names the notebooks and says what to do), never guessed.

Each file is read here, once (:func:`grader.read.read_notebook_bytes`: regular files inside the
submissions folder only), and what was read is what is graded and compared for similarity.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from grader.batch.layouts import Entry
from grader.errors import NotebookUnreadable
from grader.model import Submission
from grader.pipeline import other_lesson
from grader.read import parse_submission, read_notebook_bytes


@dataclass(frozen=True)
class Read:
    """One notebook as read: its submission, or why it cannot be graded."""

    entry: Entry
    digest: str
    """The file's sha256 (for an unreadable file, a hash of why: a change of reason regrades it)."""
    submission: Submission | None = None
    reason: str = ""


_Test = Callable[[Read], bool]


@dataclass(frozen=True)
class Choice:
    """A learner's one notebook to grade (``read.submission`` set, ``reason`` empty), or why none is."""

    read: Read
    reason: str = ""
    digest: str = ""


def read_entry(entry: Entry, root: Path | None) -> Read:
    """Read one submission, once; never raises for what a learner sent."""
    shown = Path(entry.shown)
    if entry.refused:  # the layout or the archive already knows why (too deep, not unpacked)
        return Read(entry, _hash(f"unreadable: {entry.refused}"), reason=entry.refused)
    raw = b""
    try:
        raw = read_notebook_bytes(entry.path, root)
        submission = replace(parse_submission(raw, entry.path), path=shown)
    except NotebookUnreadable as err:
        digest = hashlib.sha256(raw).hexdigest() if raw else _hash(f"unreadable: {err}")
        return Read(entry, digest, reason=str(err))
    return Read(entry, submission.digest, submission)


def choose(reads: Sequence[Read], lesson_id: str, notebook_name: str) -> Choice:
    """The one notebook of a learner to grade (the rule in the module docstring)."""
    if len(reads) == 1:
        only = reads[0]
        return Choice(only, _reason(only, lesson_id), only.digest)
    digest = _hash(" ".join(r.digest for r in reads))  # any of them changes: choose again
    gradable = [r for r in reads if r.submission is not None and _reason(r, lesson_id) == ""]
    for narrower in (_declares(lesson_id), _named_like(notebook_name)):
        if len(gradable) > 1 and any(narrower(r) for r in gradable):
            gradable = [r for r in gradable if narrower(r)]
    if len(gradable) == 1:
        return Choice(gradable[0], "", digest)
    names = ", ".join(Path(r.entry.shown).name for r in reads)
    if not gradable:
        why = "; ".join(f"{Path(r.entry.shown).name}: {_reason(r, lesson_id)}" for r in reads)
        return Choice(reads[0], f"None of your {len(reads)} notebooks ({names}) can be graded. {why}", digest)
    return Choice(
        reads[0],
        f"You sent {len(reads)} notebooks ({names}) and {len(gradable)} of them could each be your answer to this "
        f"lesson, so none was graded (the grader never guesses which one you meant): submit only your notebook "
        f"for lesson {lesson_id!r}, named as the lesson's notebook is ({notebook_name}).",
        digest,
    )


def _reason(read: Read, lesson_id: str) -> str:
    """Why this notebook cannot be graded on ``lesson_id`` ("" if it can)."""
    if read.submission is None:
        return read.reason
    return other_lesson(read.submission, lesson_id) or ""


def _declares(lesson_id: str) -> _Test:
    return lambda r: r.submission is not None and r.submission.lesson_id == lesson_id


def _named_like(notebook_name: str) -> _Test:
    stem = Path(notebook_name).stem.casefold()
    return lambda r: _base_name(r.entry.path.stem) == stem or _base_name(r.entry.path.stem).endswith(f"_{stem}")


def _base_name(stem: str) -> str:
    """A file's stem without the copy number an LMS or a browser adds (``decode-1``, ``decode (1)``)."""
    return re.sub(r"(?:-\d+| ?\(\d+\))$", "", stem).casefold()


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
