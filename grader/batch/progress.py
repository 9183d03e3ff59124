"""What a person sees of a batch: a bar with an ETA on a terminal (plain lines otherwise: CI, logs), then a summary."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from typing import IO, Protocol

from grader.batch.model import STATUSES, BatchSummary, Row
from grader.text import num, plain


class Progress(Protocol):
    """What a batch reports while it runs; the library never prints by itself."""

    def start(self, total: int) -> None: ...

    def done(self, row: Row, skipped: bool = False) -> None: ...

    def stop(self) -> None: ...


class NoProgress:
    def start(self, total: int) -> None:
        pass

    def done(self, row: Row, skipped: bool = False) -> None:
        pass

    def stop(self) -> None:
        pass


def describe(row: Row, skipped: bool = False) -> str:
    """``ada: graded 28/28``, ``bob: timed-out``, with `` (unchanged, skipped)`` for rows kept from before."""
    if row.status == "graded" and row.max_score is not None:
        text = f"{row.learner}: graded {num(row.score)}/{num(row.max_score)}"
    else:
        text = f"{row.learner}: {row.status}"
    return plain(text + (" (unchanged, skipped)" if skipped else ""))


class LineProgress:
    """``[3/8] ada: graded 28/28 (ETA 1 min 10 s)``: one line per notebook, for logs and pipes."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stderr
        self._clock = Eta()

    def start(self, total: int) -> None:
        self._clock.start(total)

    def done(self, row: Row, skipped: bool = False) -> None:
        self._clock.done(skipped)
        print(f"{self._clock.counted()} {describe(row, skipped)}{self._clock.said()}", file=self._stream, flush=True)

    def stop(self) -> None:
        pass


class Eta:
    """How far a run is and when it should end: the time per notebook graded now (those kept unchanged take no
    time, so they count as done but not in the rate) times the notebooks left. Kept for several batches at once
    (``grade class``: :meth:`start` adds each lesson's count, corrected from the estimate it replaces)."""

    def __init__(self) -> None:
        self.total = 0
        self.count = 0
        self._graded = 0
        self._started = time.monotonic()

    def start(self, total: int, estimated: int = 0) -> None:
        """``total`` more notebooks to do (``estimated`` of them were counted before, by a guess: replaced)."""
        self.total += total - estimated

    def done(self, skipped: bool) -> None:
        self.count += 1
        if not skipped:
            self._graded += 1

    def counted(self) -> str:
        return f"[{self.count}/{self.total}]"

    def seconds_left(self) -> float | None:
        """None until a notebook has been graded now: a rate from no grading would be a guess."""
        if not self._graded:
            return None
        return (time.monotonic() - self._started) / self._graded * max(self.total - self.count, 0)

    def said(self) -> str:
        left = self.seconds_left()
        return "" if left is None or self.count >= self.total else f" (ETA {duration(left)})"


def duration(seconds: float) -> str:
    """``40 s``, ``3 min 5 s``, ``1 h 2 min``: a time left as a person reads it."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


class BarProgress:
    """A rich progress bar with elapsed time and ETA, for a terminal."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("grading"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.description}", markup=False),
            console=Console(stderr=True),
        )
        self._task = self._bar.add_task("", total=None)
        self._total = 0

    def start(self, total: int, estimated: int = 0) -> None:
        self._bar.start()
        self._total += total - estimated
        self._bar.update(self._task, total=self._total)

    def done(self, row: Row, skipped: bool = False) -> None:
        self._bar.update(self._task, advance=1, description=describe(row, skipped))

    def stop(self) -> None:
        self._bar.stop()


class ClassProgress:
    """One display for a class's batches, lesson after lesson: the count and ETA are the whole class's.

    Before grading, each lesson's notebooks are counted by a cheap guess (:func:`count_notebooks`); when a
    lesson's batch starts, its real count (one per learner) replaces the guess. :meth:`lesson` gives the
    :class:`Progress` a lesson's batch reports to."""

    def __init__(self, estimates: dict[str, int], stream: IO[str] | None = None) -> None:
        stream = stream or sys.stderr
        self._estimates = dict(estimates)
        self._bar = BarProgress() if stream.isatty() else None
        self._stream = stream
        self._clock = Eta()
        self._clock.start(sum(estimates.values()))
        if self._bar is not None:
            self._bar.start(self._clock.total)

    def lesson(self, lesson: str) -> Progress:
        return _LessonProgress(self, lesson)

    def _start(self, lesson: str, total: int) -> None:
        estimated = self._estimates.pop(lesson, 0)
        self._clock.start(total, estimated)
        if self._bar is not None:
            self._bar.start(total, estimated)

    def _done(self, lesson: str, row: Row, skipped: bool) -> None:
        self._clock.done(skipped)
        if self._bar is not None:
            self._bar.done(replace(row, learner=f"{lesson}: {row.learner}"), skipped)
        else:
            line = f"{self._clock.counted()} {lesson}: {describe(row, skipped)}{self._clock.said()}"
            print(line, file=self._stream, flush=True)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()


class _LessonProgress:
    """What one lesson's batch sees of a :class:`ClassProgress`."""

    def __init__(self, whole: ClassProgress, lesson: str) -> None:
        self._whole = whole
        self._lesson = lesson

    def start(self, total: int) -> None:
        self._whole._start(self._lesson, total)

    def done(self, row: Row, skipped: bool = False) -> None:
        self._whole._done(self._lesson, row, skipped)

    def stop(self) -> None:
        pass  # the class's display stops once, after its last lesson


def progress_for(stream: IO[str] | None = None) -> Progress:
    """A bar when ``stream`` (default stderr) is a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    return BarProgress() if stream.isatty() else LineProgress(stream)


def format_summary(summary: BatchSummary) -> str:
    """What ``grade batch`` prints at the end: one line (what this run graded, what it kept, how the rows ended,
    the mean score), then its notes and where the results are."""
    from collections import Counter

    counts = Counter(r.status for r in summary.rows)
    scored = [r for r in summary.rows if r.max_score]
    line = (
        f"{len(summary.rows)} submissions ({summary.layout}): {summary.graded} graded now, "
        f"{summary.skipped} unchanged and kept, "
        f"in {summary.seconds:.1f} s; of the {len(summary.rows)}: "
        + ", ".join(f"{counts[s]} {_STATUS_WORDS[s]}" for s in STATUSES)
    )
    if scored:  # the scores grades.csv and the import hold: after any late penalty, and said when there is one
        mean = sum(r.final_score / (r.max_score or 1) for r in scored) / len(scored)
        penalised = any(r.lateness is not None and r.lateness.points_off for r in scored)
        line += f"; mean score {mean:.0%} of the maximum" + (" after the late penalty" if penalised else "")
    lines = [line + "."]
    lines += [f"  note: {note}" for note in summary.notes]
    lines.append(
        f"Results in {summary.out}: grades.csv, results.jsonl, feedback/, summary.html, summary.json, gradebook.sqlite"
    )
    return "\n".join(lines)


#: How the one summary line words each status: "graded" there means "graded now", so a row that ran says so.
_STATUS_WORDS = {"graded": "ran to the end", "timed-out": "timed out", "crashed": "crashed", "unreadable": "unreadable"}
